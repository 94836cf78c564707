// Real-path resolution (shared by permission matching and the workspace view): follows symlinks like the kernel
// does and
// tolerates a missing tail (a file about to be created). Reads the file system, nothing else.
import { accessSync, closeSync, constants, lstatSync, openSync, readlinkSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { O_NAMING, fdIsAt } from "./opened.ts";

/** Linux's MAXSYMLINKS: a lookup the kernel would refuse with ELOOP is refused here too. */
const MAX_LINKS = 40;

function segmentsReversed(p: string): string[] {
  return p.split("/").reverse();
}

function isSymlink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    // Missing, not a directory, or unreadable: not a link we could follow. The kernel's own
    // lookup of the same path fails the same way, so treating it as a plain name is safe.
    return false;
  }
}

/**
 * Resolves `input` (relative to `cwd`) to the path the kernel would reach, segment by segment.
 * `..` is applied to the real path reached so far (physical, not lexical): with `a` a symlink
 * to /elsewhere/x, `a/../b` is /elsewhere/b, exactly where open(2) would go. Segments past the
 * first missing one are appended as they are. Returns null for a symlink loop, a NUL byte, or a link that changes
 * under us.
 */
export function resolveReal(input: string, cwd: string): string | null {
  if (input.includes("\0") || cwd.includes("\0")) return null;
  if (!input.startsWith("/") && !cwd.startsWith("/")) throw new Error(`cwd must be absolute: ${cwd}`);
  const path = input.startsWith("/") ? input : `${cwd}/${input}`;
  // Under a held folder still at its real path, the walk starts there: its components are real.
  const root = heldUnder(path);
  return walk(root === undefined ? "/" : root, segmentsReversed(root === undefined ? path : path.slice(root.length)));
}

/**
 * `input` (relative) resolved from `realDir`, a folder's real path the caller has just checked (heldRoot): its
 * components are not walked again.
 */
export function resolveFrom(realDir: string, input: string): string | null {
  if (input.includes("\0")) return null;
  return input.startsWith("/") ? resolveReal(input, "/") : walk(realDir, segmentsReversed(input));
}

function walk(from: string, pending: string[]): string | null {
  let current = from;
  let links = 0;
  while (pending.length > 0) {
    const seg = pending.pop()!;
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      current = dirname(current);
      continue;
    }
    const next = current === "/" ? `/${seg}` : `${current}/${seg}`;
    if (isSymlink(next)) {
      if (++links > MAX_LINKS) return null;
      let target: string;
      try {
        target = readlinkSync(next);
      } catch {
        return null; // replaced between lstat and readlink: refuse rather than guess
      }
      if (target.startsWith("/")) current = "/";
      pending.push(...segmentsReversed(target));
      continue;
    }
    current = next;
  }
  return current;
}

function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Folders resolved once per process and held by descriptor (the workspace): by the path as given,
 * the real path first resolved and an O_PATH descriptor of the folder. Whether a held folder is
 * still at its real path costs one readlink of /proc/self/fd/N on Linux (the kernel's own path of
 * the folder; elsewhere an fstat, an lstat and a realpath), not a walk of every component; a folder
 * moved or deleted no longer is.
 */
const held = new Map<string, { readonly real: string; fd: number }>();
/**
 * A process works in one workspace (a session in a few): past this many, the oldest is let go (a test run boots
 * hundreds).
 */
const MAX_HELD = 16;

const stillAt = (h: { readonly real: string; readonly fd: number }): boolean => fdIsAt(h.fd, h.real);

/** The real path of the held folder `path` lies in (or is), when that folder is still at it. */
function heldUnder(path: string): string | undefined {
  for (const h of held.values()) {
    if (h.real !== "/" && (path === h.real || path.startsWith(`${h.real}/`)) && stillAt(h)) return h.real;
  }
  return undefined;
}

/** Opens `real` as a folder and keeps the descriptor only if the kernel places it at exactly `real`. */
function holdAt(real: string): number | null {
  let fd: number;
  try {
    fd = openSync(real, O_NAMING | constants.O_DIRECTORY);
  } catch {
    return null;
  }
  if (fdIsAt(fd, real)) return fd;
  closeSync(fd);
  return null;
}

/** `moved`: the folder is no longer the one first resolved (else it cannot be resolved at all). */
export type HeldRoot =
  | { readonly ok: true; readonly real: string }
  | { readonly ok: false; readonly moved: boolean; readonly why: string };

/**
 * The real path of `dir` (absolute) as first resolved in this process, held by descriptor from
 * then on: later uses check the descriptor (and follow `dir` again when it is not itself the real
 * path), and refuse when `dir` now leads elsewhere (the folder moved, a link was put in its place or
 * turned). A folder made again at the same real path is held anew.
 * A folder that does not exist yet is resolved each time until it does.
 */
export function heldRoot(dir: string): HeldRoot {
  const h = held.get(dir);
  // Given as its real path, the descriptor alone answers; given through a link, the link is followed again.
  if (h !== undefined && dir === h.real && stillAt(h)) return { ok: true, real: h.real };
  const real = resolveReal(dir, "/");
  if (real === null) return { ok: false, moved: false, why: `"${dir}" cannot be resolved (a symlink loop?)` };
  if (h !== undefined) {
    if (real !== h.real)
      return {
        ok: false,
        moved: true,
        why:
          `"${dir}" now leads to ${real}, not to ${h.real} where it was when this toolgate started (moved, or a ` +
          `link put in its place)`,
      };
    if (stillAt(h)) return { ok: true, real };
    const fd = holdAt(real);
    if (fd === null) return { ok: false, moved: true, why: `"${dir}" is no longer a folder at ${h.real}` };
    closeSync(h.fd);
    h.fd = fd;
    return { ok: true, real };
  }
  const fd = holdAt(real);
  if (fd !== null) {
    held.set(dir, { real, fd });
    for (const [oldest, h] of held) {
      if (held.size <= MAX_HELD) break;
      closeSync(h.fd);
      held.delete(oldest);
    }
  }
  return { ok: true, real };
}

/** PATH lookup of a bare program name, as execvp would do it; the real path or null. */
export function which(name: string, pathEnv: string, cwd: string): string | null {
  if (name === "" || name.includes("/")) return null;
  for (const dir of pathEnv.split(":")) {
    const candidate = `${dir === "" ? "." : dir}/${name}`;
    const real = resolveReal(candidate, cwd);
    if (real !== null && isExecutableFile(real)) return real;
  }
  return null;
}

/**
 * A bare program name found on a caller's PATH: the folder it was found in, the path there (a
 * symlink kept: `bunx` is bun under another name) and its real path. Relative entries ("", ".")
 * are skipped: the folder toolgate runs in must not decide which program starts.
 */
export function findOnPath(name: string, pathEnv: string): { dir: string; path: string; real: string } | null {
  if (name === "" || name.includes("/")) return null;
  for (const dir of pathEnv.split(":")) {
    if (!dir.startsWith("/")) continue;
    const path = `${dir.replace(/\/+$/, "")}/${name}`;
    const real = resolveReal(path, "/");
    if (real !== null && isExecutableFile(real)) return { dir: dir.replace(/\/+$/, "") || "/", path, real };
  }
  return null;
}
