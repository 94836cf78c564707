// Where toolgate's own stdout and stderr go: the process's, or, inside a session, the sinks of the
// forwarded call being served (AsyncLocalStorage keeps concurrent calls' output apart).
import type { AsyncLocalStorage } from "node:async_hooks";

export interface Sinks {
  out(text: string): void;
  err(text: string): void;
}

// Made by the first withSinks (a session serving calls): a bundled static import of
// node:async_hooks would load it at every start, and a cold command never redirects.
let current: AsyncLocalStorage<Sinks> | undefined;

/** Runs `f` with its output (and all it awaits) going to `sinks`. */
export function withSinks<T>(sinks: Sinks, f: () => T): T {
  current ??= new (require("node:async_hooks") as typeof import("node:async_hooks")).AsyncLocalStorage<Sinks>();
  return current.run(sinks, f);
}

export function writeStdout(text: string): void {
  const s = current?.getStore();
  if (s) s.out(text);
  else process.stdout.write(text);
}

export function writeStderr(text: string): void {
  const s = current?.getStore();
  if (s) s.err(text);
  else process.stderr.write(text);
}
