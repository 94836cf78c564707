// Where toolgate's own stdout and stderr go: the process's, or, inside a session, the sinks of the
// forwarded call being served (AsyncLocalStorage keeps concurrent calls' output apart).
// A one-shot command writes its file descriptors directly: `process.stdout` and `process.stderr`
// are Node streams whose first use costs a start about 7 ms of CPU (most of a bare Bun start), so
// they are used only by the long-running commands (useProcessStreams), where serve guards stdout.
import type { AsyncLocalStorage } from "node:async_hooks";
import { writeSync } from "node:fs";

export interface Sinks {
  out(text: string): void;
  err(text: string): void;
  /** The forwarded call's --quiet/--verbose (src/result/human.ts), set when its flags are read. */
  level?: HumanLevel;
}

/** How much a person is told on stderr: 0 with --quiet, 1 by default, 2 with --verbose. */
export type HumanLevel = 0 | 1 | 2;
let level: HumanLevel = 1;

/** This run's level (a session's forwarded call has its own). */
export function setHumanLevel(l: HumanLevel): void {
  const s = current?.getStore();
  if (s) s.level = l;
  else level = l;
}

export const humanLevel = (): HumanLevel => current?.getStore()?.level ?? level;

// Made by the first withSinks (a session serving calls): a bundled static import of
// node:async_hooks would load it at every start, and a cold command never redirects.
let current: AsyncLocalStorage<Sinks> | undefined;

/** Runs `f` with its output (and all it awaits) going to `sinks`. */
export function withSinks<T>(sinks: Sinks, f: () => T): T {
  current ??= new (require("node:async_hooks") as typeof import("node:async_hooks")).AsyncLocalStorage<Sinks>();
  return current.run(sinks, f);
}

/** How long a write may find a non-blocking descriptor full before it fails. */
const FULL_FOR_MS = 60_000;

/**
 * All of `text` to `fd`, waiting out a full non-blocking pipe; a closed reader (EPIPE) throws, as a stream's write
 * did.
 */
function writeAll(fd: number, text: string): void {
  let rest: Uint8Array = Buffer.from(text);
  let full: number | undefined;
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
      full = undefined;
    } catch (e) {
      if ((e as { code?: string }).code !== "EAGAIN") throw e;
      full ??= performance.now();
      if (performance.now() - full > FULL_FOR_MS) throw e;
      Bun.sleepSync(1);
    }
  }
}

let out = (text: string) => writeAll(1, text);
let err = (text: string) => writeAll(2, text);

/**
 * From now on the process's own output goes through process.stdout and process.stderr: for the
 * long-running commands (serve takes stdout for its transport and sends all else to stderr).
 */
export function useProcessStreams(): void {
  out = (text) => void process.stdout.write(text);
  err = (text) => void process.stderr.write(text);
}

/** Said on stderr when `call TOOL -` waits for its arguments on a terminal (by the call, or by a session's client). */
export const READING_STDIN = "toolgate: reading the arguments (one JSON object) from stdin; end with Ctrl-D\n";

export function writeStdout(text: string): void {
  const s = current?.getStore();
  if (s) s.out(text);
  else out(text);
}

export function writeStderr(text: string): void {
  const s = current?.getStore();
  if (s) s.err(text);
  else err(text);
}

/** The process's own stderr, even inside a forwarded call's sinks (a session's own lines). */
export function writeOwnStderr(text: string): void {
  err(text);
}

let ttyWrap: { isTTY(fd: number): boolean } | null | undefined;

/** Whether this process's `fd` is a terminal, without making the Node stream (as `process.stdout.isTTY` would). */
export function isTerminal(fd: 0 | 1 | 2): boolean {
  if (ttyWrap === undefined) {
    try {
      ttyWrap = (process as unknown as { binding(name: string): { isTTY(fd: number): boolean } }).binding("tty_wrap");
    } catch {
      ttyWrap = null;
    }
  }
  if (ttyWrap && typeof ttyWrap.isTTY === "function") return ttyWrap.isTTY(fd) === true;
  return (require("node:tty") as typeof import("node:tty")).isatty(fd);
}
