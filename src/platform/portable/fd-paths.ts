// What an open descriptor is where no /proc says it (macOS, the BSDs): the path it was verified at,
// remembered with the object's identity (device and inode). A descriptor is at `path` when the
// object it holds is the one lstat finds there and realpath finds no link on the way. Weaker than
// Linux's: a name inside a verified folder (inDir) is reached by path again, so a folder swapped
// for a link between that check and the use is followed (docs/security.md, "Platforms").
import { closeSync, constants, fstatSync, lstatSync, openSync, realpathSync } from "node:fs";
import type { FdPaths } from "../types.ts";

interface Seen {
  readonly path: string;
  readonly dev: bigint;
  readonly ino: bigint;
}

/** The error code fs/opened.ts reads as "changed while it was being opened" (its CHANGED; not a refusal code). */
const CHANGED = "CHANGED";
const changed = (what: string) =>
  Object.assign(new Error(`${what} is no longer where it was verified`), { code: CHANGED });

export function portableFdPaths(): FdPaths {
  const seen = new Map<number, Seen>();
  const identity = (fd: number) => {
    try {
      const st = fstatSync(fd, { bigint: true });
      return { dev: st.dev, ino: st.ino };
    } catch {
      return null;
    }
  };
  const atPath = (path: string, id: { dev: bigint; ino: bigint }) => {
    try {
      const st = lstatSync(path, { bigint: true });
      return st.dev === id.dev && st.ino === id.ino && realpathSync(path) === path;
    } catch {
      return false;
    }
  };
  const isAt = (fd: number, path: string): boolean => {
    const id = identity(fd);
    if (id === null || !atPath(path, id)) {
      seen.delete(fd);
      return false;
    }
    seen.set(fd, { path, ...id });
    return true;
  };
  // Only a descriptor verified here, still holding that object (its number may have been reused), still there.
  const pathOf = (fd: number): string | null => {
    const s = seen.get(fd);
    const id = s === undefined ? null : identity(fd);
    return s !== undefined && id !== null && id.dev === s.dev && id.ino === s.ino && atPath(s.path, id) ? s.path : null;
  };
  const folder = (dirFd: number): string => {
    const dir = pathOf(dirFd);
    if (dir === null) throw changed(`the folder open as descriptor ${dirFd}`);
    return dir;
  };
  const join = (dir: string, name: string) => (dir === "/" ? `/${name}` : `${dir}/${name}`);
  const inDir = (dirFd: number, name: string): string => join(folder(dirFd), name);
  return {
    isAt,
    pathOf,
    inDir,
    // Opened by path, then verified like any other: a link swapped in on the way is refused, not followed.
    openIn(dirFd, name, flags, mode) {
      const dir = folder(dirFd);
      const path = name === "." ? dir : join(dir, name);
      const fd = openSync(path, flags | constants.O_NOFOLLOW, mode);
      if (isAt(fd, path)) return fd;
      closeSync(fd);
      throw changed(path);
    },
    // By the path it was verified at: what the other process opens is looked up again.
    reopenPath: pathOf,
    // No O_PATH: a read-only open that never waits on a FIFO.
    namingFlags: constants.O_RDONLY | (constants.O_NONBLOCK ?? 0),
  };
}
