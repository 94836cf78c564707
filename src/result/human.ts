// The one channel for human lines. Everything toolgate says to a person goes to stderr through
// here (stdout carries only the result), every line escaped (src/result/escape.ts) so untrusted
// text never drives the terminal, at the run's level (src/result/io.ts, set from the flags):
// --quiet keeps errors and warnings only, --verbose adds the details. A plain `toolgate: ...`
// line is written at once, without loading anything (it is on a call's path); the styled
// messages (tell) go through consola, loaded on their first use.
//
// What else writes to stderr, and why it cannot come through here (test/architecture.test.ts
// holds this list):
// - src/result/io.ts is the sink itself: the process's stderr, or a session's forwarded call's.
// - src/launcher/guard.ts and src/launcher/reaper.ts are toolgate's internal processes: they load
//   nothing before they act, and their only line is their own refusal.
// - src/serve/stdout.ts: serve's stdout is the protocol's; what a library prints there is moved
//   to stderr as it is, not as a line of toolgate's.
// - src/cli/serve-start.ts: a server's operator lines (a gate's GitHub workflow commands among them) and
//   telemetry are the process's stderr, never a client's (its stdout is the protocol).
// The status line's terminal control (src/cli/status-line.ts), a session's forwarded stderr and the
// operator lines of a call (dev_check's GitHub workflow commands: `::group::`, `::error`, which
// must start their line as they are) are bytes already made: they go through `raw` here, or, in
// src/cli/call.ts, src/cli/call-view.ts and src/cli/call-args.ts, straight to io's writeStderr (the
// status line's redraws, the peer's stderr, the operator and telemetry lines, the note that a call
// reads its arguments from the terminal), as `raw` would.
import { escapeControl } from "./escape.ts";
import { humanLevel, setHumanLevel, writeOwnStderr, writeStderr } from "./io.ts";
import type { ConsolaInstance } from "consola";

/** This run's level, from the flags every command takes (the entry point reads them). */
export function levelFrom(flags: Readonly<Record<string, unknown>>): void {
  setHumanLevel(flags.quiet === true ? 0 : flags.verbose === true ? 2 : 1);
}

/** Whether a line of this level is shown: 0 always (errors), 1 unless --quiet, 2 with --verbose. */
export const shows = (at: 0 | 1 | 2): boolean => humanLevel() >= at;

/** One plain `toolgate: ...` line, unless --quiet. */
export function note(text: string): void {
  if (shows(1)) writeStderr(`toolgate: ${escapeControl(text)}\n`);
}

/** One plain `toolgate: ...` line at every level: what a person must know even with --quiet. */
export function warning(text: string): void {
  writeStderr(`toolgate: ${escapeControl(text)}\n`);
}

/** One `toolgate: ...` line only with --verbose. */
export function detail(text: string): void {
  if (shows(2)) writeStderr(`toolgate: ${escapeControl(text)}\n`);
}

/** A line that is not toolgate's own sentence (a URL to open, a line a tool printed), escaped, unless --quiet. */
export function plain(text: string): void {
  if (shows(1)) writeStderr(`${escapeControl(text)}\n`);
}

/** A refusal: `toolgate: MESSAGE` and its hint, at every level; each line escaped and indented under the first. */
export function problem(message: string, hint?: string): void {
  writeStderr(`toolgate: ${lines(message)}\n${hint ? `  hint: ${lines(hint)}\n` : ""}`);
}

/** A message of several lines keeps its lines, each escaped and indented, so none reads as toolgate's own. */
const lines = (text: string) => text.split("\n").map(escapeControl).join("\n  ");

/**
 * Bytes already made for the terminal, written as they are, at every level: the status line's
 * redraws, what a session's child logged, a telemetry exporter's line.
 */
export function raw(text: string): void {
  writeStderr(text);
}

/** The process's own line (a session's, a supervisor's), never a forwarded call's, at every level. */
export function ownLine(text: string): void {
  writeOwnStderr(`${text}\n`);
}

let instance: ConsolaInstance | undefined;
/** stderr as consola sees it: the process's, or a forwarded call's in a session. */
const errStream = { write: (text: string) => void writeStderr(text) } as unknown as NodeJS.WriteStream;

/** Loaded on first use: a successful call prints nothing for humans and never pays for it. */
async function consola(): Promise<ConsolaInstance> {
  if (instance) return instance;
  const { createConsola } = await import("consola/basic");
  return (instance = createConsola({ stdout: errStream, stderr: errStream, formatOptions: { date: false } }));
}

/** One styled message for the operator, escaped; a success is not shown with --quiet. */
export async function tell(kind: "error" | "warn" | "success", text: string): Promise<void> {
  if (kind === "success" && !shows(1)) return;
  (await consola())[kind](escapeControl(text));
}
