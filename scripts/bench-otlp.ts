// OTLP/protobuf bench (on demand, not in `bun test`): the request body for the same spans, written by
// @opentelemetry/otlp-transformer's ProtobufTraceSerializer (the library) and by a hand-written
// writer when one is given (BENCH_OTLP_WRITER=path of a module exporting writeRequest(spans), e.g.
// an older src/telemetry/protobuf.ts), in one run. The spans are toolgate's own, made from journal
// rows by spanMaker (what the exporter is handed): a cold call's batch (3 spans) and a serve
// batch (512). Cold: a fresh process per sample, module load + first body; warm: one process, the
// median of many rounds. Medians of BENCH_RUNS (default 15) cold processes.
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { join } from "node:path";
import type { JournalRow } from "../src/state/journal.ts";
import { spanMaker } from "../src/telemetry/export.ts";
import { callTrace, type SpanRecord } from "../src/telemetry/spans.ts";
import { loadavg, median, quantile } from "./bench-lib.ts";

type Write = (spans: readonly ReadableSpan[]) => Uint8Array | undefined;
const handWritten = process.env.BENCH_OTLP_WRITER;

/** `calls` calls' spans as the reaper and serve make them: started, approved, finished (a fifth of them errors). */
function toolgateSpans(calls: number): ReadableSpan[] {
  const records: SpanRecord[] = [];
  const row: JournalRow = {
    time_ms: 1_700_000_000_123,
    tool: "file_read",
    origin: "builtin",
    digest: "d",
    effect: "read",
    status: "success",
    error_code: null,
    duration_ms: 3,
    args_preview: "{}",
    result_bytes: 9,
    detail: null,
  };
  for (let i = 0; i < calls; i++) {
    const parent =
      i % 2
        ? {
            traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
            spanId: "00f067aa0ba902b7",
            sampled: true,
            remote: true,
            traceState: "a=b",
          }
        : null;
    const t = callTrace({ parent, lane: "default", sandbox: "off" }, (r) => records.push(r));
    t.tap("tool_started", { ...row, status: "started" });
    t.approved(i % 3 ? "flag" : "policy");
    t.tap("tool_finished", i % 5 ? row : { ...row, status: "error", error_code: "permission.denied", duration_ms: i });
  }
  const make = spanMaker();
  return records.map(make).filter((s): s is ReadableSpan => s !== undefined);
}

async function loadWriter(which: string): Promise<Write> {
  if (which === "library") {
    const { ProtobufTraceSerializer } = await import("@opentelemetry/otlp-transformer");
    return (spans) => ProtobufTraceSerializer.serializeRequest(spans as ReadableSpan[]);
  }
  return ((await import(handWritten!)) as { writeRequest: Write }).writeRequest;
}

// One cold sample: `bun scripts/bench-otlp.ts --cold WHICH SIZE` prints {load, first} in ms.
if (process.argv[2] === "--cold") {
  const [which, size] = [process.argv[3]!, Number(process.argv[4])];
  const spans = toolgateSpans(size);
  const t0 = performance.now();
  const write = await loadWriter(which);
  const t1 = performance.now();
  const body = write(spans);
  const t2 = performance.now();
  if (!body?.length) throw new Error(`${which} wrote nothing`);
  process.stdout.write(`${JSON.stringify({ load: t1 - t0, first: t2 - t1 })}\n`);
  process.exit(0);
}

const runs = Number(process.env.BENCH_RUNS ?? 15);
const writers = ["library", ...(handWritten ? ["hand-written"] : [])];
const fmt = (xs: number[]) =>
  `${median(xs).toFixed(3)} ms (p10..p90 ${quantile(xs, 0.1).toFixed(3)}..${quantile(xs, 0.9).toFixed(3)})`;
console.log(`OTLP/protobuf request bodies, toolgate's spans; load ${loadavg()}`);
for (const size of [1, 171]) {
  const spans = toolgateSpans(size);
  // Warm: the same bodies each round, alternating writers; each sample times `reps` bodies.
  const loaded = await Promise.all(writers.map(loadWriter));
  const lib = Buffer.from(loaded[0]!(spans)!);
  if (loaded[1] && !lib.equals(Buffer.from(loaded[1](spans)!)))
    throw new Error("the hand-written writer's bytes differ from the library's");
  const reps = size === 1 ? 2_000 : 20;
  const warm = writers.map(() => [] as number[]);
  for (let round = 0; round < 60; round++) {
    loaded.forEach((write, k) => {
      const t0 = performance.now();
      for (let i = 0; i < reps; i++) write(spans);
      warm[k]!.push((performance.now() - t0) / reps);
    });
  }
  // Cold: fresh processes, interleaved.
  const cold = writers.map(() => ({ load: [] as number[], first: [] as number[] }));
  for (let i = 0; i < runs; i++) {
    writers.forEach((which, k) => {
      const p = Bun.spawnSync(
        [process.execPath, join(import.meta.dir, "bench-otlp.ts"), "--cold", which, String(size)],
        { stdout: "pipe", stderr: "inherit", env: { ...process.env } },
      );
      const s = JSON.parse(p.stdout.toString()) as { load: number; first: number };
      cold[k]!.load.push(s.load);
      cold[k]!.first.push(s.first);
    });
  }
  console.log(`${spans.length} spans (${lib.length} bytes):`);
  writers.forEach((which, k) => {
    console.log(
      `  ${which.padEnd(12)} warm ${fmt(warm[k]!)} | cold: module load ${fmt(cold[k]!.load)}, first body ${fmt(cold[k]!.first)}`,
    );
  });
  if (writers.length === 2) {
    const ratio = (a: number[], b: number[]) => (median(a) / median(b)).toFixed(2);
    console.log(
      `  library / hand-written: warm ${ratio(warm[0]!, warm[1]!)}x, cold first body ${ratio(cold[0]!.first, cold[1]!.first)}x`,
    );
  }
}
