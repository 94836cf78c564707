// Where toolgate's own stdout and stderr go: the process's, or, inside a session, the sinks of the
// forwarded call being served (AsyncLocalStorage keeps concurrent calls' output apart).
import { AsyncLocalStorage } from "node:async_hooks";

export interface Sinks {
  out(text: string): void;
  err(text: string): void;
}

const current = new AsyncLocalStorage<Sinks>();

/** Runs `f` with its output (and all it awaits) going to `sinks`. */
export const withSinks = <T>(sinks: Sinks, f: () => T): T => current.run(sinks, f);

export function writeStdout(text: string): void {
  const s = current.getStore();
  if (s) s.out(text);
  else process.stdout.write(text);
}

export function writeStderr(text: string): void {
  const s = current.getStore();
  if (s) s.err(text);
  else process.stderr.write(text);
}
