// A process that outlives the one that starts it (a session, a task's supervisor): the same executable, its
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

/**
 * `log`: one file for stdout and stderr, made here 0600; `files`: two files already made (a task's
 * 0600 artifacts); neither: nowhere.
 */
export function startDetached(
  argv: readonly string[],
  opts: { cwd: string; env: Readonly<Record<string, string | undefined>>; log?: string; files?: { readonly stdout: string; readonly stderr: string } },
): Detached {
  // The log is opened here (0600) so that its mode does not depend on the umask.
  const fd = opts.log === undefined ? undefined : openSync(opts.log, "w", 0o600);
  try {
    const p = Bun.spawn([...argv], {
      cwd: opts.cwd,
      env: opts.env as Record<string, string>,
      stdin: "ignore",
      stdout: opts.files ? Bun.file(opts.files.stdout) : (fd ?? "ignore"),
      stderr: opts.files ? Bun.file(opts.files.stderr) : (fd ?? "ignore"),
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
