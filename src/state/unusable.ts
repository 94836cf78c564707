// Why a state folder cannot be used, in words, from what making, opening or writing it threw:
// toolgate refuses to run a call it cannot journal (exit 5), and says which folder and why.

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
  const known = BY_CODE[code] ?? (code.startsWith("SQLITE_READONLY") ? "toolgate.db or its folder is read-only" : code.startsWith("SQLITE_IOERR") ? "a read or write failed (a full disk?)" : undefined);
  const raw = (e as Error)?.message ?? String(e);
  return known ? `${known}: ${code}` : raw;
}
