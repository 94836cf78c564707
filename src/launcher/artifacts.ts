// Artifact files for a launch's full stdout and stderr: a folder of mode 0700, files of mode 0600
// opened exclusively (never through a symlink), named by 128 random bits: nothing in a name comes
// from the command, the caller or the child. A file is made only for a stream that has output.
import { closeSync, constants, mkdirSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
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

/**
 * Opens `dir/name`, creating the folder (0700) when the open finds it missing, so a launch into
 * an existing folder costs no extra system call. Throws what the open threw.
 */
export function openArtifact(dir: string, name: string, open: (path: string) => ArtifactSink): ArtifactSink {
  const path = join(dir, name);
  try {
    return open(path);
  } catch (e) {
    if ((e as { code?: unknown }).code !== "ENOENT") throw e;
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return open(path);
}
