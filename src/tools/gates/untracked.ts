// The untracked files of dev_check's disposable copy, copied by descriptor. This runs as the
// caller (often root) and outside any sandbox while a sandboxed model may be swapping names in the
// checkout, so a name is never opened twice: each entry's folder is opened and its real path
// checked, the entry is reached through that descriptor (src/fs/opened.ts inDir: /proc/self/fd/N/name
// on Linux, like openat), opened without following a last link, and a file is copied from the
// descriptor it was checked on.
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
  symlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { inDir, O_DIR, openChecked, openIn } from "../../fs/opened.ts";

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NONBLOCK } = constants;
const CHUNK = 1 << 20;

/**
 * Copies each of `names` (relative paths git listed) from `top` to `root`. A regular file keeps
 * its mode; a symlink is recreated as the same link (never followed); anything else, or an entry
 * whose folder is no longer where git saw it (a folder swapped for a link), is skipped.
 */
export function copyUntracked(top: string, root: string, names: readonly string[]): void {
  const realTop = realpathSync(top);
  const realRoot = realpathSync(root);
  const buf = Buffer.allocUnsafe(CHUNK);
  for (const rel of names) copyEntry(realTop, realRoot, rel, buf);
}

/** Opens `path`'s folder and returns its descriptor only when its real path is exactly `path`. */
function openVerifiedDir(path: string): number | null {
  const opened = openChecked(path, O_DIR);
  return opened.ok ? opened.fd : null;
}

/** `name` in the verified folder `dirFd`; null when it can no longer be placed (moved: no /proc). */
function nameIn(dirFd: number, name: string): string | null {
  try {
    return inDir(dirFd, name);
  } catch {
    return null;
  }
}

function copyEntry(top: string, root: string, rel: string, buf: Buffer): void {
  const src = openVerifiedDir(dirname(join(top, rel)));
  if (src === null) return; // gone, or a folder on its way became a link
  try {
    const from = nameIn(src, basename(rel));
    if (from === null) return;
    let st: Stats;
    try {
      st = lstatSync(from);
    } catch {
      return; // gone since git listed it
    }
    if (!st.isSymbolicLink() && !st.isFile()) return;
    const target = join(root, rel);
    mkdirSync(dirname(target), { recursive: true });
    // The copy is ours alone while it is filled, but the applied patch may have put a link where
    // a folder of untracked files was: never write through it.
    const dst = openVerifiedDir(dirname(target));
    if (dst === null) return;
    try {
      const to = nameIn(dst, basename(rel));
      if (to === null) return;
      if (st.isSymbolicLink()) {
        let link: string;
        try {
          link = readlinkSync(from);
        } catch {
          return; // swapped for something that is not a link: skipped
        }
        symlinkSync(link, to);
      } else copyFile(src, dst, basename(rel), buf);
    } finally {
      closeSync(dst);
    }
  } finally {
    closeSync(src);
  }
}

/**
 * Copies only when what is opened (never through a last link) is a regular file. It keeps its
 * permission bits but not setuid/setgid: the copy is written by the caller (often root).
 */
function copyFile(src: number, dst: number, name: string, buf: Buffer): void {
  let input: number;
  try {
    // O_NONBLOCK: a fifo swapped in must not hang the copy (fstat then skips it).
    input = openIn(src, name, O_RDONLY | O_NONBLOCK);
  } catch {
    return; // gone, or now a link
  }
  try {
    const st = fstatSync(input);
    if (!st.isFile()) return;
    const output = openIn(dst, name, O_WRONLY | O_CREAT | O_EXCL, 0o600);
    try {
      fchmodSync(output, st.mode & 0o1777);
      for (let n = readSync(input, buf, 0, CHUNK, null); n > 0; n = readSync(input, buf, 0, CHUNK, null)) {
        for (let off = 0; off < n; ) off += writeSync(output, buf, off, n - off);
      }
    } finally {
      closeSync(output);
    }
  } finally {
    closeSync(input);
  }
}
