// The exporter's own thread in a long-lived process (serve, a session, a task's supervisor): span
// records arrive in batches from the thread that runs the calls, and the SDK's work (spans,
// batching, serialization, the POST) happens here, never on that thread. Built as its own entry
// point of the binary (scripts/build.ts); started by telemetry.ts only when telemetry is on.
import type { TelemetryOn } from "./env.ts";
import type { Exporter } from "./export.ts";
import type { SpanRecord } from "./spans.ts";

declare const self: Worker;

/** `records`: a JSON array of span records (a string crosses threads cheaper than a cloned object). */
export type ToExporter =
  | { t: "start"; settings: TelemetryOn }
  | { t: "spans"; records: string }
  | { t: "close"; ms: number };
export type FromExporter = { line: string } | "closed";

// This thread's code tiers up 50 times later than normal: the JIT compiler's threads are shared with
// the thread that runs the calls, and compiling the exporter's code (a few µs of work per span) cost
// more CPU than it saved. serve, 2,000 calls: the compiler's CPU about 28 ms -> 10 ms more than
// telemetry off, this thread's about 26 -> 29 ms; 10,000 calls: 42 ms less in all.
Bun.unsafe.setJITPolicy(50);

let exporter: Promise<Exporter> | undefined;
const say = (m: FromExporter) => self.postMessage(m);

self.onmessage = async (e: MessageEvent<ToExporter>) => {
  const m = e.data;
  if (m.t === "start")
    exporter = import("./export.ts").then((x) => x.startExporter(m.settings, (line) => say({ line })));
  else if (m.t === "spans") (await exporter)?.add(JSON.parse(m.records) as SpanRecord[]);
  else {
    await (await exporter)?.close(m.ms);
    say("closed");
  }
};
