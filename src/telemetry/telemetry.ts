// A process's telemetry, present only when the user's environment asks for it (env.ts). Calls record
// plain span records (spans.ts) as their journal rows are written; where they go depends on the process:
// - one-shot (`toolgate call`): kept, and handed after the result is printed to the detached reaper,
//   which loads the SDK and sends them (the caller never waits on the exporter or the collector);
// - live (serve, a session, a task's supervisor): the exporter runs on a thread of its own (worker.ts),
//   started with the process (it loads the SDK while the process boots); records reach it in
//   batches, and it is flushed (bounded) before the process ends (at once when nothing was recorded). The reaper
// exports a one-shot call's spans on its own thread (nobody waits on it).
import { fstatSync } from "node:fs";
import { parseTraceparent, type SpanParent } from "./context.ts";
import { isOtelVar, telemetrySettings, type TelemetryOn } from "./env.ts";
import type { Exporter } from "./export.ts";
import type { FromExporter, ToExporter } from "./worker.ts";
import { callTrace, type CallFacts, type CallTrace, type SpanRecord } from "./spans.ts";

type Env = Readonly<Record<string, string | undefined>>;

export interface Telemetry {
  /** One call's trace. `trace`: the context a served client sent in `_meta` (else TRACEPARENT applies). */
  call(
    facts: Omit<CallFacts, "parent">,
    trace?: { readonly traceparent?: unknown; readonly tracestate?: unknown },
  ): CallTrace;
  /** A one-shot process hands its spans to the reaper (returns at once); a live one flushes, waiting at most `ms`. */
  finish(ms?: number): Promise<void>;
}

/** The reaper's variable (and _1, _2, … when long) holding a one-shot call's span records. */
export const SPANS_VAR = "TOOLGATE_REAP_SPANS";
const CHUNK = 100_000;
/** At most this many spans per one-shot process (a delegation child's calls included); the rest are dropped. */
const MAX_HANDED = 1_000;

/**
 * Undefined (nothing loaded, nothing recorded) unless an endpoint is set; a setting it cannot use costs one stderr
 * line.
 */
export function telemetryFor(
  env: Env,
  mode: "one-shot" | "live",
  operator: (line: string) => void,
): Telemetry | undefined {
  const settings = telemetrySettings(env);
  if (!settings.on) {
    if (settings.problem !== undefined) operator(`toolgate: telemetry: ${settings.problem}`);
    return undefined;
  }
  const parent = parseTraceparent(env.TRACEPARENT, env.TRACESTATE);
  return mode === "one-shot" ? oneShot(settings, env, parent) : live(settings, parent, operator);
}

function oneShot(settings: TelemetryOn, env: Env, parent: SpanParent | null): Telemetry {
  const records: SpanRecord[] = [];
  return {
    call: (facts, trace) =>
      callTrace(
        { ...facts, parent: parseTraceparent(trace?.traceparent, trace?.tracestate) ?? parent },
        (r) => void (records.length < MAX_HANDED && records.push(r)),
      ),
    async finish() {
      if (records.length === 0) return;
      // Only the exporter's own variables go along (its endpoint, headers, resource, limits).
      const vars = Object.fromEntries(
        Object.entries(env).filter((e): e is [string, string] => isOtelVar(e[0]) && e[1] !== undefined),
      );
      const handed = { ...vars, ...spansEnv(records), [AFTER_VAR]: String(process.pid) };
      // The reaper's one line on failure reaches a terminal or a file; never a pipe (whose reader would wait for it).
      const { reapAfterExit } = await import("../launcher/reaper.ts");
      if (!reapAfterExit(handed, stderrIsWaitFree())) await exportNow(settings, records, () => {});
    },
  };
}

/** Where a live process's records go: the exporter's thread (worker.ts), else this thread's own exporter. */
interface Sink {
  send(records: SpanRecord[]): void;
  close(ms: number): Promise<void>;
}

/** How long records wait on the calls' thread before they go to the exporter's, in one message. */
const HANDOFF_MS = 100;

function live(settings: TelemetryOn, parent: SpanParent | null, operator: (line: string) => void): Telemetry {
  // Started with the process: the exporter's thread loads the SDK while this one boots, not during its first calls.
  const sink = startSink(settings, operator);
  const pending: SpanRecord[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const handOff = () => {
    timer = undefined;
    if (pending.length > 0) sink.send(pending.splice(0));
  };
  const push = (r: SpanRecord) => {
    pending.push(r);
    timer ??= setTimeout(handOff, HANDOFF_MS).unref();
  };
  return {
    call: (facts, trace) =>
      callTrace({ ...facts, parent: parseTraceparent(trace?.traceparent, trace?.tracestate) ?? parent }, push),
    async finish(ms = 1_000) {
      clearTimeout(timer);
      handOff();
      await sink.close(ms);
    },
  };
}

// In the compiled binary the worker is its own entry point at the root of the embedded file system
// (`telemetry/worker.ts` below `src/`); from source it sits beside this file.
const workerUrl = (): string =>
  import.meta.url.startsWith("file:///$bunfs/")
    ? "./telemetry/worker.ts"
    : new URL("./worker.ts", import.meta.url).href;

/** The exporter's thread; if it cannot start, an exporter on this thread (the same spans, later work here). */
function startSink(settings: TelemetryOn, operator: (line: string) => void): Sink {
  let local: Promise<Exporter> | undefined;
  const inProcess = () => (local ??= import("./export.ts").then((m) => m.startExporter(settings, operator)));
  let worker: Worker | undefined;
  let closed: (() => void) | undefined;
  try {
    worker = new Worker(workerUrl());
    worker.unref();
    worker.onmessage = (e: MessageEvent<FromExporter>) => (e.data === "closed" ? closed?.() : operator(e.data.line));
    worker.onerror = () => void (worker = undefined);
    worker.postMessage({ t: "start", settings } satisfies ToExporter);
  } catch {
    worker = undefined;
  }
  let used = false;
  return {
    send(records) {
      used = true;
      if (worker) worker.postMessage({ t: "spans", records: JSON.stringify(records) } satisfies ToExporter);
      else
        void inProcess().then(
          (e) => e.add(records),
          () => {},
        );
    },
    async close(ms) {
      const w = worker;
      // Nothing was recorded: nothing to flush, the thread just ends (a process that ran no call exits at once).
      if (!used) return void w?.terminate();
      if (!w) return void (await (await inProcess().catch(() => undefined))?.close(ms));
      await new Promise<void>((res) => {
        const late = setTimeout(res, ms + 100);
        closed = () => (clearTimeout(late), res());
        w.postMessage({ t: "close", ms } satisfies ToExporter);
      });
      w.terminate();
    },
  };
}

/** The reaper's side: the records a one-shot call handed over, sent now (nobody waits on this process). */
export async function exportHandedOver(env: Env, operator: (line: string) => void): Promise<void> {
  const settings = telemetrySettings(env);
  const records = readSpansEnv(env);
  if (!settings.on || records.length === 0) return;
  // The exporter loads once the caller has exited (it does so at once): on a busy machine the
  // caller's last milliseconds do not share the CPU with it.
  await gone(Number(env[AFTER_VAR]), 300);
  await exportNow(settings, records, operator);
}

/** The caller whose spans the reaper sends: it waits for that process to end. */
const AFTER_VAR = "TOOLGATE_REAP_AFTER";

/** Resolves once `pid` no longer runs, or after `ms`. */
async function gone(pid: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  while (Number.isInteger(pid) && pid > 1 && alive() && Date.now() < until) await Bun.sleep(2);
}

async function exportNow(
  settings: TelemetryOn,
  records: readonly SpanRecord[],
  operator: (line: string) => void,
): Promise<void> {
  const { startExporter } = await import("./export.ts");
  const e = startExporter(settings, operator);
  e.add(records);
  // OTEL_EXPORTER_OTLP_TIMEOUT bounds the request itself; this bounds the whole flush.
  await e.close(15_000);
}

export function spansEnv(records: readonly SpanRecord[]): Record<string, string> {
  const text = JSON.stringify(records);
  const out: Record<string, string> = {};
  for (let i = 0; i * CHUNK < text.length; i++)
    out[i === 0 ? SPANS_VAR : `${SPANS_VAR}_${i}`] = text.slice(i * CHUNK, (i + 1) * CHUNK);
  return out;
}

export function readSpansEnv(env: Env): SpanRecord[] {
  let text = env[SPANS_VAR] ?? "";
  for (let i = 1; env[`${SPANS_VAR}_${i}`] !== undefined; i++) text += env[`${SPANS_VAR}_${i}`];
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? (v as SpanRecord[]) : [];
  } catch {
    return [];
  }
}

/** Whether stderr is a terminal or a regular file (a line written later blocks nobody), not a pipe or socket. */
function stderrIsWaitFree(): boolean {
  try {
    const s = fstatSync(2);
    return s.isCharacterDevice() || s.isFile();
  } catch {
    return false;
  }
}
