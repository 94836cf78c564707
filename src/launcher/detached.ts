// A process that outlives the one that starts it (a session, a task's supervisor): the same executable
// (started by spawn.ts), its own session (setsid), stdin /dev/null, stdout and stderr to a file or
// nowhere; nothing waits for it.
// The one detached start: a task's supervisor (startTaskSupervisor) is one too, its output in two 0600
// artifacts, so it outlives its caller's shell, terminal and process group.
import { openSync, closeSync } from "node:fs";
import { join } from "node:path";
import { fileSink, openArtifact, randomHex } from "./artifacts.ts";
import { readStat } from "./proc-tree.ts";
import { ownChildren } from "./subreaper.ts";
import { withoutBunSwitches } from "./bun-switches.ts";
import { spawnChild } from "./spawn.ts";

export interface Detached {
  readonly pid: number;
  /** Resolves with its exit code if it ends while the starter still runs. */
  readonly exited: Promise<number>;
}

/** toolgate's own argv prefix: the compiled executable alone, or bun and the entry script. */
export function selfArgv(): string[] {
  return Bun.main.startsWith("/$bunfs/") || Bun.main === process.execPath
    ? [process.execPath]
    : [process.execPath, Bun.main];
}

/**
 * `log`: one file for stdout and stderr, made here 0600; `files`: two files already made (a task's
 * 0600 artifacts); neither: nowhere.
 */
export function startDetached(
  argv: readonly string[],
  opts: {
    cwd: string;
    env: Readonly<Record<string, string | undefined>>;
    log?: string;
    files?: { readonly stdout: string; readonly stderr: string };
    stderr?: "inherit";
  },
): Detached {
  // The log is opened here (0600) so that its mode does not depend on the umask.
  const fd = opts.log === undefined ? undefined : openSync(opts.log, "w", 0o600);
  try {
    const p = spawnChild({
      argv,
      cwd: opts.cwd,
      // toolgate again: Bun's runtime switches are its own, never handed on (bun-switches.ts).
      env: definedOnly(withoutBunSwitches(opts.env)),
      stdio: [
        "ignore",
        opts.files ? Bun.file(opts.files.stdout) : (fd ?? "ignore"),
        opts.files ? Bun.file(opts.files.stderr) : (fd ?? opts.stderr ?? "ignore"),
      ],
      session: "new",
    });
    p.unref();
    // Spawned on purpose, never an adopted orphan: the subreaper's sweep (ending a server's tree
    // in this process) must not take it with it — as for a task's supervisor (startTaskSupervisor).
    ownChildren.add(p.pid);
    return { pid: p.pid, exited: p.exited };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** The variables that have a value (an unset one is no variable of the child's). */
function definedOnly(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}

export interface DetachSpec {
  readonly argv: readonly string[];
  /** toolgate's own environment, passed whole: the supervisor is the same executable and builds its children's. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly artifactsDir: string;
}

export interface DetachedTask {
  readonly pid: number;
  /** Start time in clock ticks (/proc/PID/stat), so a reused pid is never taken for it. */
  readonly start: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function startTaskSupervisor(
  spec: DetachSpec,
): { ok: true; value: DetachedTask } | { ok: false; message: string } {
  const id = randomHex();
  let out: ReturnType<typeof openArtifact> | undefined;
  let err: ReturnType<typeof openArtifact> | undefined;
  try {
    out = openArtifact(spec.artifactsDir, `${id}.stdout.log`, fileSink);
    err = openArtifact(spec.artifactsDir, `${id}.stderr.log`, fileSink);
    // The files go to the child by path; ours are closed once it is spawned. startDetached also
    // keeps the subreaper's sweep from taking it.
    const proc = startDetached(spec.argv, {
      cwd: spec.cwd,
      env: spec.env,
      files: { stdout: out.path, stderr: err.path },
    });
    return {
      ok: true,
      value: { pid: proc.pid, start: readStat(proc.pid)?.start ?? null, stdout: out.path, stderr: err.path },
    };
  } catch (e) {
    return { ok: false, message: `cannot start the task's supervisor: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    out?.close();
    err?.close();
  }
}

export const artifactsFolder = (stateDir: string) => join(stateDir, "artifacts");
