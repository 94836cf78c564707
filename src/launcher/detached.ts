// A process that outlives the one that starts it (a session, a reaper): the same executable, its
// own session (setsid), stdin /dev/null, stdout and stderr to a file or nowhere; nothing waits for it.
import { openSync, closeSync } from "node:fs";
import { ownChildren } from "./subreaper.ts";

export interface Detached {
  readonly pid: number;
  /** Resolves with its exit code if it ends while the starter still runs. */
  readonly exited: Promise<number>;
}

/** toolgate's own argv prefix: the compiled executable alone, or bun and the entry script. */
export function selfArgv(): string[] {
  return Bun.main.startsWith("/$bunfs/") || Bun.main === process.execPath ? [process.execPath] : [process.execPath, Bun.main];
}

export function startDetached(argv: readonly string[], opts: { cwd: string; env: Readonly<Record<string, string | undefined>>; log?: string }): Detached {
  // The log is opened here (0600) so that its mode does not depend on the umask.
  const fd = opts.log === undefined ? undefined : openSync(opts.log, "w", 0o600);
  try {
    const p = Bun.spawn([...argv], {
      cwd: opts.cwd,
      env: opts.env as Record<string, string>,
      stdin: "ignore",
      stdout: fd ?? "ignore",
      stderr: fd ?? "ignore",
      detached: true,
    });
    p.unref();
    // Spawned on purpose, never an adopted orphan: the subreaper's sweep (ending a server's tree
    // in this process) must not take it with it — as for a task's supervisor (detach.ts).
    ownChildren.add(p.pid);
    return { pid: p.pid, exited: p.exited };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
