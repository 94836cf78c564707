// Artifact files for a launch's full stdout and stderr: a folder of mode 0700, files of mode 0600
// opened exclusively (never through a symlink), named by 128 random bits: nothing in a name comes
// from the command, the caller or the child. A file is made only for a stream that has output.
// Each is capped (capture.ts); the folder is pruned by age and total size after a run that wrote one.
// The folder itself is checked once per process before the first file goes in: toolgate's own
// (made here 0700, this uid), never a link to somewhere else (the state folder is toolgate's own).
import { closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, unlinkSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { ownFolder } from "../fs/state-folder.ts";
import type { ArtifactSink } from "./types.ts";

// Bun opens every file close-on-exec, so an artifact never leaks into a child.
const FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Mode 0600 at creation (a umask can only narrow it, never widen it). */
export function fileSink(path: string): ArtifactSink {
  const fd = openSync(path, FLAGS, 0o600);
  let open = true;
  return {
    path,
    write(data) {
      for (let off = 0; off < data.byteLength; ) off += writeSync(fd, data, off, data.byteLength - off);
    },
    close() {
      if (!open) return;
      open = false;
      closeSync(fd);
    },
  };
}

export function randomHex(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/** Artifact folders this process checked. */
const checked = new Set<string>();

/**
 * Opens `dir/name`, making the folder (0700) when missing; the folder is checked first, once per
 * process (a link or another user's folder throws). Throws what the open threw.
 */
export function openArtifact(dir: string, name: string, open: (path: string) => ArtifactSink): ArtifactSink {
  if (!checked.has(dir)) {
    try {
      ownFolder(dir);
    } catch (e) {
      if ((e as { code?: unknown }).code !== "ENOENT") throw e;
      mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
      ownFolder(dir);
    }
    checked.add(dir);
  }
  return open(join(dir, name));
}

/** Artifacts older than this are removed (docs/tools.md "bash and scratch_read"). */
export const ARTIFACT_MAX_AGE_MS = 7 * 24 * 3600 * 1000;
/** The artifacts folder is kept under this many bytes, oldest removed first. */
export const ARTIFACTS_MAX_BYTES = 1024 * 1024 * 1024;
/** Only files named as the launcher names them are ever removed. */
const ARTIFACT_NAME = /^[0-9a-f]{32}\.(stdout|stderr)\.log$/;

export interface PruneLimits {
  readonly maxAgeMs: number;
  readonly maxBytes: number;
}

/**
 * Removes artifacts past the age limit, then the oldest until the folder is under the size limit;
 * `keep` (the run's own) is never removed. Best effort: a file that cannot be removed is skipped.
 */
export function pruneArtifacts(
  dir: string,
  keep: readonly string[],
  now: number,
  limits: PruneLimits = { maxAgeMs: ARTIFACT_MAX_AGE_MS, maxBytes: ARTIFACTS_MAX_BYTES },
): number {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  const files: { path: string; mtime: number; size: number }[] = [];
  let total = 0;
  for (const name of names) {
    if (!ARTIFACT_NAME.test(name)) continue;
    const path = join(dir, name);
    try {
      const st = lstatSync(path);
      if (!st.isFile()) continue;
      total += st.size;
      if (!keep.includes(path)) files.push({ path, mtime: st.mtimeMs, size: st.size });
    } catch {
      // Gone meanwhile.
    }
  }
  files.sort((a, b) => a.mtime - b.mtime);
  let removed = 0;
  for (const f of files) {
    if (now - f.mtime <= limits.maxAgeMs && total <= limits.maxBytes) break;
    try {
      unlinkSync(f.path);
      total -= f.size;
      removed++;
    } catch {
      // Left for the next run.
    }
  }
  return removed;
}
