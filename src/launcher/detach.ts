// A background task's supervisor (detached.ts starts the session's process): in a session of its own (setsid) with stdin from /dev/null and stdout/stderr written to two 0600
// artifacts, and not waited for: it outlives its caller's shell, terminal and process group.
import { join } from "node:path";
import { fileSink, openArtifact, randomHex } from "./artifacts.ts";
import { readStat } from "./proc-tree.ts";
import { ownChildren } from "./subreaper.ts";

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
    // The files' own descriptors go to the child; ours are closed once it is spawned.
    const fdOf = (path: string) => Bun.file(path);
    const proc = Bun.spawn([...spec.argv], {
      cwd: spec.cwd,
      env: { ...spec.env },
      detached: true,
      stdio: ["ignore", fdOf(out.path), fdOf(err.path)],
    });
    proc.unref();
    // Spawned on purpose, never an adopted orphan: ending a server's tree in this process (the
    // subreaper's sweep) must not take the supervisor with it.
    ownChildren.add(proc.pid);
    return { ok: true, value: { pid: proc.pid, start: readStat(proc.pid)?.start ?? null, stdout: out.path, stderr: err.path } };
  } catch (e) {
    return { ok: false, message: `cannot start the task's supervisor: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    out?.close();
    err?.close();
  }
}

export const artifactsFolder = (stateDir: string) => join(stateDir, "artifacts");
