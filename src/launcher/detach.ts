// A background task's supervisor (through detached.ts, as the session's process): in a session of its own (setsid) with stdin from /dev/null and stdout/stderr written to two 0600
// artifacts, and not waited for: it outlives its caller's shell, terminal and process group.
import { join } from "node:path";
import { fileSink, openArtifact, randomHex } from "./artifacts.ts";
import { readStat } from "./proc-tree.ts";
import { startDetached as spawnDetached } from "./detached.ts";

export interface DetachSpec {
  readonly argv: readonly string[];
  /** toolgate's own environment, passed whole: the supervisor is the same executable and builds its children's. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly artifactsDir: string;
}

export interface Detached {
  readonly pid: number;
  /** Start time in clock ticks (/proc/PID/stat), so a reused pid is never taken for it. */
  readonly start: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function startDetached(spec: DetachSpec): { ok: true; value: Detached } | { ok: false; message: string } {
  const id = randomHex();
  let out, err;
  try {
    out = openArtifact(spec.artifactsDir, `${id}.stdout.log`, fileSink);
    err = openArtifact(spec.artifactsDir, `${id}.stderr.log`, fileSink);
    // The files go to the child by path; ours are closed once it is spawned. The one detached
    // start (detached.ts) also keeps the subreaper's sweep from taking it.
    const proc = spawnDetached(spec.argv, { cwd: spec.cwd, env: spec.env, files: { stdout: out.path, stderr: err.path } });
    return { ok: true, value: { pid: proc.pid, start: readStat(proc.pid)?.start ?? null, stdout: out.path, stderr: err.path } };
  } catch (e) {
    return { ok: false, message: `cannot start the task's supervisor: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    out?.close();
    err?.close();
  }
}

export const artifactsFolder = (stateDir: string) => join(stateDir, "artifacts");
