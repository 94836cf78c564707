// The writers' file I/O (file_edit, file_write): read a whole regular file with its identity, and
// replace or create one atomically — a temporary file in the same folder, fsync, rename (or link,
// when nothing may be replaced), fsync of the folder, then a read-back whose digest must match.
// A crash at any point leaves the old file or the new one at the target, never a partial one.
// Every step goes through the folder's verified descriptor (src/fs/opened.ts), never its name again.
import { randomHex } from "../../result/sha256.ts";
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
  type BigIntStats,
} from "node:fs";
import { CHANGED, changedMessage, inDir, O_DIR, O_FILE, openChecked, openIn } from "../../fs/opened.ts";
import { basename, dirname } from "node:path";
import { sha256Hex } from "../../catalog/canonical.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";
import { READ_BOUND_BYTES } from "./file-read.ts";

/** The digest file_read reports and file_edit binds to: sha256 of the whole file's bytes. */
export const digestOf = (bytes: Uint8Array): string => `sha256:${sha256Hex(bytes)}`;

/** The step that makes a write visible; injectable so a test can fail or crash right before it. */
export interface PublishIo {
  rename(from: string, to: string): void;
  link(existing: string, to: string): void;
}
export const realIo: PublishIo = { rename: renameSync, link: linkSync };

export interface ReadFile {
  readonly bytes: Buffer;
  readonly stat: BigIntStats;
}

/** Same-file-and-unchanged test: inode, size, and both change times to the nanosecond. */
const identity = (s: BigIntStats) => `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;

const errCode = (e: unknown) => (e as NodeJS.ErrnoException).code ?? "EIO";

/**
 * A whole regular file (at most READ_BOUND_BYTES, as file_read), or the refusal file_read would give. `abs` is a
 * checked real path.
 */
export function readRegular(abs: string, rel: string): Outcome<ReadFile> {
  const opened = openChecked(abs, O_FILE);
  if (!opened.ok) {
    const code = opened.code;
    if (code === CHANGED) return refuse("path.changed", changedMessage(rel, "nothing was read or written"));
    if (code === "ENOENT" || code === "ENOTDIR")
      return refuse("file.missing", `"${rel}" does not exist; file_find lists what does`);
    return refuse("file.unreadable", `"${rel}" cannot be read (${code})`);
  }
  return readOpened(opened.fd, rel);
}

/** Reads (and closes) an open descriptor: regular files only, within the bound. */
function readOpened(fd: number, rel: string): Outcome<ReadFile> {
  try {
    const stat = fstatSync(fd, { bigint: true });
    if (stat.isDirectory()) return refuse("file.not_a_file", `"${rel}" is a directory, not a file`);
    if (!stat.isFile()) return refuse("file.not_a_file", `"${rel}" is not a regular file`);
    if (stat.size > BigInt(READ_BOUND_BYTES)) {
      return refuse("file.too_large", `"${rel}" is ${stat.size} bytes, above the bound of ${READ_BOUND_BYTES}`, {
        size: Number(stat.size),
        bound: READ_BOUND_BYTES,
      });
    }
    const bytes = Buffer.allocUnsafe(Number(stat.size));
    let off = 0;
    while (off < bytes.length) {
      const n = readSync(fd, bytes, off, bytes.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return ok({ bytes: bytes.subarray(0, off), stat });
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens the folder that holds `target` (a checked real path) as a verified descriptor: the folder
 * at exactly that path, reached without a symlink swapped in. The caller closes it.
 */
export function openParent(target: string, rel: string): Outcome<number> {
  const dir = openChecked(dirname(target), O_DIR);
  if (dir.ok) return ok(dir.fd);
  if (dir.code === CHANGED) return refuse("path.changed", changedMessage(rel, "nothing was written"));
  return refuse("file.unwritable", `"${rel}" cannot be written: its folder cannot be opened (${dir.code})`);
}

export interface AtomicWriteOptions {
  /**
   * "replace" renames over whatever is there; "create" links, so an existing target refuses (`file.exists`) without
   * a race.
   */
  readonly publish: "replace" | "create";
  /** Exact permission bits for the result; absent: a new file's default (0o666 less the umask). */
  readonly mode?: number;
  /** Owner to carry over (best effort: only root may give a file away). */
  readonly owner?: { readonly uid: number; readonly gid: number };
  /**
   * The target as the caller read it: re-checked just before publishing, so a writer in between is `file.stale`, not
   * lost.
   */
  readonly unchangedSince?: BigIntStats;
  readonly io?: PublishIo;
  /** The target's folder, already opened and verified (openParent); absent, it is opened here. */
  readonly dirFd?: number;
}

export interface Written {
  readonly digest: string;
  readonly bytes: number;
}

/**
 * Writes `data` to `target` (a checked real path inside the workspace) atomically and verifies it by reading it back.
 */
export function atomicWrite(target: string, rel: string, data: Uint8Array, opts: AtomicWriteOptions): Outcome<Written> {
  if (opts.dirFd !== undefined) return writeIn(opts.dirFd, basename(target), rel, data, opts);
  const dir = openParent(target, rel);
  if (!dir.ok) return dir;
  try {
    return writeIn(dir.value, basename(target), rel, data, opts);
  } finally {
    closeSync(dir.value);
  }
}

/** The atomic write of `name` inside the open folder `dirFd`: temp file, rename or link, and fsync all through it. */
function writeIn(
  dirFd: number,
  name: string,
  rel: string,
  data: Uint8Array,
  opts: AtomicWriteOptions,
): Outcome<Written> {
  const io = opts.io ?? realIo;
  let target: string;
  try {
    target = inDir(dirFd, name);
  } catch {
    // the folder moved since it was verified (no /proc)
    return refuse("path.changed", changedMessage(rel, "nothing was written"));
  }
  const opened = openTemp(dirFd, name, opts.mode);
  if (!opened.ok)
    return refuse(
      "file.unwritable",
      `"${rel}" cannot be written: a temporary file in its folder could not be created (${opened.code})`,
    );
  const { fd, path: temp } = opened;
  let published = false;
  let closed = false;
  try {
    if (opts.mode !== undefined) fchmodSync(fd, opts.mode); // exact bits: the umask must not narrow a kept mode
    if (opts.owner) {
      try {
        fchownSync(fd, opts.owner.uid, opts.owner.gid);
      } catch {
        // EPERM for a file owned by someone else: the new file stays ours, like any editor's save.
      }
    }
    for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
    fsyncSync(fd);
    closeSync(fd);
    closed = true;
    if (opts.unchangedSince && !stillSame(target, opts.unchangedSince)) {
      return refuse(
        "file.stale",
        `"${rel}" was changed by someone else while this edit was being written; read it again with file_read ` +
          `and redo the edit`,
      );
    }
    try {
      if (opts.publish === "create") {
        publishNew(io, temp, target);
      } else {
        io.rename(temp, target);
        published = true;
      }
    } catch (e) {
      const code = errCode(e);
      if (code === "EEXIST")
        return refuse("file.exists", `"${rel}" already exists; pass overwrite: true to replace it`);
      return refuse("file.unwritable", `"${rel}" cannot be written (${code})`);
    }
  } catch (e) {
    return refuse("file.unwritable", `"${rel}" cannot be written (${errCode(e)})`);
  } finally {
    if (!closed) closeSync(fd);
    if (!published) unlinkQuietly(temp); // after a link, the temp name is the second name of the new file
  }
  fsyncDir(dirFd);
  return verify(target, rel, data);
}

/** link(2) refuses an existing target atomically; where links are unsupported, check then rename. */
function publishNew(io: PublishIo, temp: string, target: string): void {
  try {
    io.link(temp, target);
  } catch (e) {
    if (!["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK"].includes(errCode(e))) throw e;
    if (existsNoFollow(target)) throw Object.assign(new Error("exists"), { code: "EEXIST" });
    io.rename(temp, target);
  }
}

function existsNoFollow(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}

function openTemp(
  dirFd: number,
  name: string,
  mode: number | undefined,
): { ok: true; fd: number; path: string } | { ok: false; code: string } {
  // Hidden, unique, and short enough for NAME_MAX whatever the target's name; O_EXCL never opens an existing file
  // or link.
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  let code = "EEXIST";
  for (let attempt = 0; attempt < 8 && code === "EEXIST"; attempt++) {
    const temp = `.${name.slice(0, 64)}.${randomHex(8)}.toolgate-tmp`;
    try {
      const path = inDir(dirFd, temp);
      return { ok: true, fd: openIn(dirFd, temp, flags, mode === undefined ? 0o666 : 0o600), path };
    } catch (e) {
      code = errCode(e);
    }
  }
  return { ok: false, code };
}

function stillSame(target: string, before: BigIntStats): boolean {
  try {
    return identity(lstatSync(target, { bigint: true })) === identity(before);
  } catch {
    return false;
  }
}

/** Reads the target back through the folder's descriptor (never a symlink) and compares digests. */
function verify(target: string, rel: string, data: Uint8Array): Outcome<Written> {
  const want = digestOf(data);
  let back: Outcome<ReadFile>;
  try {
    back = readOpened(openSync(target, O_FILE), rel);
  } catch {
    back = refuse("file.unreadable", "");
  }
  if (!back.ok || digestOf(back.value.bytes) !== want) {
    return refuse(
      "file.verify_failed",
      `"${rel}" was written, but reading it back did not give the written content (another writer?); read it ` +
        `again with file_read`,
    );
  }
  return ok({ digest: want, bytes: data.length });
}

function fsyncDir(dirFd: number): void {
  try {
    fsyncSync(dirFd);
  } catch {
    // Some file systems refuse fsync on a folder; the rename itself is still atomic.
  }
}

function unlinkQuietly(p: string): void {
  try {
    unlinkSync(p);
  } catch {
    // already gone
  }
}
