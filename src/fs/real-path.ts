// Real-path resolution (shared by permission matching and the workspace view): follows symlinks like the kernel does and
// tolerates a missing tail (a file about to be created). Reads the file system, nothing else.
import { accessSync, constants, lstatSync, readlinkSync, statSync } from "node:fs";
import { dirname } from "node:path";

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
 * first missing one are appended as they are. Returns null for a symlink loop, a NUL byte, or a link that changes under us.
 */
export function resolveReal(input: string, cwd: string): string | null {
  if (input.includes("\0") || cwd.includes("\0")) return null;
  if (!input.startsWith("/") && !cwd.startsWith("/")) throw new Error(`cwd must be absolute: ${cwd}`);
  const pending = segmentsReversed(input.startsWith("/") ? input : `${cwd}/${input}`);
  let current = "/";
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
