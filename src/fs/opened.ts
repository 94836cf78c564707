// Opening what was checked (what is checked is what is opened). A checked real path
// is opened without following its last component, and the descriptor must be the object at exactly
// that path (Linux: its own path, /proc/self/fd/N; elsewhere its identity, platform/portable/fd-paths.ts):
// a symlink or folder swapped in after the check is refused, never followed.
import { closeSync, constants, fstatSync, lstatSync, openSync } from "node:fs";
import { hostPlatform } from "../platform/host.ts";

const fds = () => hostPlatform().fds;

/** Opens an object without reading it and without waiting on a FIFO: O_PATH on Linux. */
export const O_NAMING = fds().namingFlags;
export const O_DIR = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
// a FIFO must not block; fstat refuses it
export const O_FILE = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Where an open descriptor is now (the kernel's word on Linux), or null when that cannot be told. */
export const fdPath = (fd: number): string | null => fds().pathOf(fd);

/** Whether the open descriptor `fd` is the object at exactly `path` (a real path). */
export const fdIsAt = (fd: number, path: string): boolean => fds().isAt(fd, path);

/**
 * `name` inside the folder open as `dirFd`: on Linux the kernel looks the name up in that very
 * folder, so open, mkdir, link and rename through it act where the descriptor was verified, not
 * where a path now leads (elsewhere by the path it was verified at: the weaker guarantee). Throws
 * an error coded CHANGED when the folder can no longer be placed.
 */
export const inDir = (dirFd: number, name: string): string => fds().inDir(dirFd, name);

/** A path by which a child opens the object `fd` holds (/proc/PID/fd/N on Linux), or null when there is none now. */
export const reopenPath = (fd: number): string | null => fds().reopenPath(fd);

/** Opens `name` inside the folder open as `dirFd`, never through a last link; throws like openSync (CHANGED: moved). */
export const openIn = (dirFd: number, name: string, flags: number, mode?: number): number =>
  fds().openIn(dirFd, name, flags, mode);

/** An open descriptor, or why not: an errno code, or CHANGED when it is not the object at `path`. */
export type Opened = { readonly ok: true; readonly fd: number } | { readonly ok: false; readonly code: string };

/**
 * Opens `path` (a checked real path) with O_NOFOLLOW added, and keeps the descriptor only if it is
 * the object at exactly `path`. A last component turned symlink (ELOOP) is reported as CHANGED too.
 */
export function openChecked(path: string, flags: number, mode?: number): Opened {
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NOFOLLOW, mode);
  } catch (e) {
    return { ok: false, code: openError(e, path) };
  }
  if (fdIsAt(fd, path)) return { ok: true, fd };
  closeSync(fd);
  return { ok: false, code: CHANGED };
}

export const CHANGED = "CHANGED";

/**
 * The errno of a failed O_NOFOLLOW open, CHANGED when the last component is a symlink: ELOOP, or
 * ENOTDIR with O_DIRECTORY (Linux reports a symlink to a folder that way).
 */
export function openError(e: unknown, path: string): string {
  const code = (e as NodeJS.ErrnoException).code ?? "EIO";
  if (code === "ELOOP") return CHANGED;
  if (code === "ENOTDIR") {
    try {
      if (lstatSync(path).isSymbolicLink()) return CHANGED;
    } catch {
      // gone as well: ENOTDIR stands
    }
  }
  return code;
}

/** The words of a `path.changed` refusal, for a tool that names what it did not do. */
export const changedMessage = (rel: string, nothing: string): string =>
  `"${rel}" changed while it was being opened (a symlink or folder was swapped in after the check), so ` +
  `${nothing}; check what it is now and call again`;

export function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}

/**
 * What is at a checked path, seen through a descriptor of exactly it: "dir", "file", "other", or the failure code
 * (CHANGED for a symlink).
 */
export function kindAt(path: string): "dir" | "file" | "other" | string {
  const opened = openChecked(path, O_NAMING);
  if (!opened.ok) return opened.code;
  try {
    const st = fstatSync(opened.fd);
    // O_PATH with O_NOFOLLOW opens a symlink itself: a checked path is resolved, so a link here is new.
    return st.isSymbolicLink() ? CHANGED : st.isDirectory() ? "dir" : st.isFile() ? "file" : "other";
  } finally {
    closeSync(opened.fd);
  }
}
