// `toolgate serve` with telemetry off and on, paired (run on demand, not in `bun test`; also run by
// `BENCH_OTEL=1 bun scripts/bench-serve.ts`). The target: telemetry on costs at most 5% of
// serve's calls/s. Each round starts two serve processes in turn (off, on; the order swaps every
// round), each answering WARMUP file_read calls and then CALLS sequential calls over raw
// newline JSON-RPC, the spans going to a loopback OTLP receiver. Per process: the measured calls'
// wall time, and serve's CPU time over them, all its threads (the exporter's included) summed from
// /proc/PID/task/*/schedstat (ns), so a core taken by something else does not count, only the work
// done. Printed: per round; then the medians, the median of the rounds' own ratios (on / off), the
// median paired difference of CPU per call, and the load. BENCH_ROUNDS (default 11), BENCH_CALLS
// (default 2000), BENCH_BIN (default dist/toolgate), BENCH_BASELINE (an older binary: its own
// off/on pair in the same rounds).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const bin = process.env.BENCH_BIN ?? join(root, "dist", "toolgate");
const baseline = process.env.BENCH_BASELINE;
const rounds = Number(process.env.BENCH_ROUNDS ?? 11);
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const WARMUP = 100;

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

/** CPU time (ns) of every live thread of `pid`, by kind: the calls' thread, the exporter's (a Worker), the JIT's, the rest. */
function cpuNs(pid: number): Record<Part, number> {
  const by: Record<Part, number> = { main: 0, Worker: 0, JIT: 0, other: 0 };
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]);
      const comm = readFileSync(`/proc/${pid}/task/${t}/comm`, "utf8").trim();
      by[t === String(pid) ? "main" : comm === "Worker" ? "Worker" : comm.startsWith("JIT") ? "JIT" : "other"] += ns;
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return by;
}
type Part = "main" | "Worker" | "JIT" | "other";
const PARTS: Part[] = ["main", "Worker", "JIT", "other"];
interface Sample {
  usPerCall: number;
  cpuUsPerCall: number;
  parts: Record<Part, number>;
}

let received = 0;
const collector = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: async (req) => (await req.arrayBuffer(), received++, new Response("")),
});

/** One serve process: WARMUP calls, then CALLS timed ones. */
async function run(cmd: string[], cwd: string, env: Record<string, string>): Promise<Sample> {
  const p = Bun.spawn(cmd, { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const err = new Response(p.stderr).text();
  const reader = p.stdout.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  let id = 0;
  /** Sends one request, reads until its answer's line (requests are sequential: one line each). */
  const request = async (method: string, params: object) => {
    p.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params })}\n`);
    p.stdin.flush();
    for (;;) {
      const nl = buf.indexOf("\n");
      if (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const m = JSON.parse(line);
        if (m.id !== id) continue;
        if (m.error || m.result?.isError) throw new Error(`${method}: ${line.slice(0, 300)}`);
        return m.result;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`serve ended: ${await err}`);
      buf += decoder.decode(value, { stream: true });
    }
  };
  await request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench", version: "1" },
  });
  p.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  const params = { name: "file_read", arguments: { path: "README.md" } };
  for (let i = 0; i < WARMUP; i++) await request("tools/call", params);
  const c0 = cpuNs(p.pid);
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) await request("tools/call", params);
  const wall = performance.now() - t0;
  const c1 = cpuNs(p.pid);
  p.stdin.end();
  const code = await p.exited;
  if (code !== 0) throw new Error(`serve exited ${code}: ${await err}`);
  const parts = Object.fromEntries(PARTS.map((k) => [k, (c1[k] - c0[k]) / 1000 / CALLS])) as Record<Part, number>;
  return { usPerCall: (wall * 1000) / CALLS, cpuUsPerCall: PARTS.reduce((a, k) => a + parts[k], 0), parts };
}

const work = mkdtempSync(join(tmpdir(), "toolgate-bench-otel-"));
try {
  const ws = join(work, "ws");
  mkdirSync(ws);
  mkdirSync(join(work, "home"));
  writeFileSync(join(ws, "README.md"), "# bench\n\nsome text\n".repeat(20));
  const env = {
    PATH: "/usr/bin:/bin",
    HOME: join(work, "home"),
    XDG_STATE_HOME: join(work, "home", "state"),
    CI: "true",
  };
  const on = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}` };
  const args = ["serve", "--allow-read", "--approve", "file_read"];
  const bins: [string, string][] = [["", bin], ...(baseline ? [["baseline ", baseline] as [string, string]] : [])];
  const cases = bins.flatMap(([who, b]) => [
    { name: `${who}off`, cmd: [b, ...args], env },
    { name: `${who}on`, cmd: [b, ...args], env: on },
  ]);
  const results = new Map(cases.map((c) => [c.name, [] as Sample[]]));
  console.log(
    `serve file_read, telemetry off vs on: ${rounds} rounds of ${CALLS} sequential calls per process (after ${WARMUP}), order swapped each round; µs per call wall / CPU (serve, all threads)`,
  );
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? cases : [...cases].reverse();
    for (const c of order) results.get(c.name)!.push(await run(c.cmd, ws, c.env));
    console.log(
      `  round ${r + 1}, load ${loadavg()}: ${cases.map((c) => `${c.name} ${results.get(c.name)![r]!.usPerCall.toFixed(0)} / ${results.get(c.name)![r]!.cpuUsPerCall.toFixed(0)}`).join(", ")}`,
    );
  }
  const report: Record<string, unknown> = { load: loadavg(), rounds, calls: CALLS };
  for (const [who] of bins) {
    const off = results.get(`${who}off`)!;
    const onR = results.get(`${who}on`)!;
    const ratio = median(off.map((x, i) => x.usPerCall / onR[i]!.usPerCall));
    const cpuOff = median(off.map((x) => x.cpuUsPerCall));
    const cpuOn = median(onR.map((x) => x.cpuUsPerCall));
    const cpuDiff = median(off.map((x, i) => onR[i]!.cpuUsPerCall - x.cpuUsPerCall));
    console.log(
      `  ${who}calls/s with telemetry on: ${(ratio * 100).toFixed(1)}% of off (median of the rounds' ratios; target ≥ 95%); wall ${median(off.map((x) => x.usPerCall)).toFixed(0)} → ${median(onR.map((x) => x.usPerCall)).toFixed(0)} µs/call;` +
        ` CPU ${cpuOff.toFixed(1)} → ${cpuOn.toFixed(1)} µs/call (paired median +${cpuDiff.toFixed(1)} µs, ${((cpuDiff / cpuOff) * 100).toFixed(1)}%)`,
    );
    const parts = PARTS.map(
      (k) => `${k} ${median(off.map((x) => x.parts[k])).toFixed(1)} → ${median(onR.map((x) => x.parts[k])).toFixed(1)}`,
    ).join(", ");
    console.log(`  ${who}CPU µs/call by thread (medians): ${parts}`);
    report[`${who}otel`] = {
      calls_ratio: +ratio.toFixed(3),
      cpu_off_us: +cpuOff.toFixed(1),
      cpu_on_us: +cpuOn.toFixed(1),
      cpu_paired_diff_us: +cpuDiff.toFixed(1),
    };
  }
  console.log(`  ${received} export requests received; load ${loadavg()}`);
  console.log(JSON.stringify(report));
} finally {
  collector.stop(true);
  rmSync(work, { recursive: true, force: true });
}
