// Why a state folder cannot be used, in words, from what making, opening or writing it threw:
// toolgate refuses to run a call it cannot journal (exit 5), and says which folder and why.
// probeState asks the same question without writing anything (a boot that fails writes nothing).
import { accessSync, constants, statfsSync, statSync } from "node:fs";
import { dirname } from "node:path";

const BY_CODE: Readonly<Record<string, string>> = {
  EEXIST: "something that is not a folder is already there",
  ENOTDIR: "a part of the path is not a folder",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EROFS: "the file system is read-only",
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  ENOENT: "a parent folder is missing and cannot be made",
  SQLITE_FULL: "the disk is full",
  SQLITE_CANTOPEN: "toolgate.db cannot be opened or created there (a read-only folder?)",
  SQLITE_NOTADB: "toolgate.db is not a SQLite database",
  SQLITE_CORRUPT: "toolgate.db is damaged",
  SQLITE_BUSY: "toolgate.db stayed locked by another process",
};

export function whyUnusable(e: unknown): string {
  const code = String((e as { code?: unknown })?.code ?? "");
  const known =
    BY_CODE[code] ??
    (code.startsWith("SQLITE_READONLY")
      ? "toolgate.db or its folder is read-only"
      : code.startsWith("SQLITE_IOERR")
        ? "a read or write failed (a full disk?)"
        : undefined);
  const raw = (e as Error)?.message ?? String(e);
  return known ? `${known}: ${code}` : raw;
}

/**
 * Whether `dir` could be the state folder, without writing: it is a writable folder (or the
 * nearest existing folder above it is), and its file system has free blocks. Null when it looks
 * usable; else an error whose code whyUnusable explains. Opening it later is the real test.
 */
export function probeState(
  dir: string,
  uid: number | undefined = process.getuid?.(),
): { code: string; message: string } | null {
  let at = dir;
  for (;;) {
    try {
      const st = statSync(at);
      if (!st.isDirectory()) return { code: at === dir ? "EEXIST" : "ENOTDIR", message: `${at} is not a folder` };
      break;
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code !== "ENOENT") return { code: code ?? "EIO", message: (e as Error).message };
      if (dirname(at) === at) return { code: "ENOENT", message: `no folder above ${dir}` };
      at = dirname(at);
    }
  }
  try {
    accessSync(at, constants.W_OK | constants.X_OK);
    const fs = statfsSync(at);
    // root may use the blocks reserved for it; others only the available ones. A file system
    // that reports no blocks at all (some FUSE ones) is left to the open.
    if (fs.blocks > 0 && (uid === 0 ? fs.bfree : fs.bavail) === 0)
      return { code: "ENOSPC", message: `no free space under ${at}` };
  } catch (e) {
    return { code: (e as { code?: string }).code ?? "EIO", message: (e as Error).message };
  }
  return null;
}
