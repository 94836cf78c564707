// Over stdio, stdout carries JSON-RPC and nothing else. Claiming it keeps a private writer for the
// transport and sends every other way this process writes to stdout (console.*, process.stdout)
// to stderr, whichever module writes. Children never share it: the launcher gives each its own pipes.

export interface StdoutSink {
  /**
   * The transport's writer: true when written (or dropped: the reader is gone), false when it must wait for "drain".
   */
  write(data: string): boolean;
  once(event: "drain", listener: () => void): void;
  /** Called once when stdout's reader is gone (EPIPE and the like): nothing written will be read. */
  onGone(listener: () => void): void;
}

const CONSOLE_TO_STDOUT = [
  "log",
  "info",
  "debug",
  "dir",
  "dirxml",
  "table",
  "trace",
  "group",
  "groupCollapsed",
  "groupEnd",
  "count",
  "countReset",
  "time",
  "timeLog",
  "timeEnd",
] as const;

let claimed: StdoutSink | undefined;

/** Takes stdout for the protocol (once per process) and returns the only writer left on it. */
export function claimStdout(): StdoutSink {
  if (claimed) return claimed;
  const out = process.stdout;
  const realWrite = out.write.bind(out) as (data: string) => boolean;
  // node:util here, not at the top: a static import of a builtin is loaded at every start of the binary.
  const { format } = require("node:util") as typeof import("node:util");
  const toStderr = (...args: unknown[]) => void process.stderr.write(`${format(...args)}\n`);
  for (const k of CONSOLE_TO_STDOUT) (console as unknown as Record<string, unknown>)[k] = toStderr;
  (out as unknown as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]) =>
    (process.stderr.write as (...a: unknown[]) => boolean)(chunk, ...rest);
  // A client that vanished leaves a broken pipe: from then on answers are dropped (a pending
  // "drain" would never come) and whoever listens is told, so serve can stop instead of waiting.
  let gone = false;
  const listeners: (() => void)[] = [];
  const lose = () => {
    if (gone) return;
    gone = true;
    for (const l of listeners.splice(0)) l();
  };
  out.on("error", lose);
  const write = (data: string) => {
    if (gone) return true;
    try {
      return realWrite(data) || gone;
    } catch {
      lose();
      return true;
    }
  };
  return (claimed = {
    write,
    once: (event, listener) => {
      if (gone) return void listener();
      out.once(event, listener);
      listeners.push(listener);
    },
    onGone: (listener) => (gone ? listener() : void listeners.push(listener)),
  });
}
