// The content of each workspace file a command line names, for a digest (the approval
// digest covers what runs): the program, and any argument naming a regular file as the child
// would resolve it against its cwd (`bash scripts/fmt.sh`, `node server.js`), not only `./` ones.
// Read while manifests and server specs are read, so the catalog itself stays pure.
import { sha256 } from "../result/sha256.ts";
import { closeSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { relative, resolve } from "node:path";

const CHUNK = 1 << 20;

const isInside = (root: string, p: string) => {
  const rel = relative(root, p);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith("/"));
};

/** A path's real path, or null when it does not resolve. */
export function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/**
 * sha256 of each regular file inside `workspace` that `argv` names, keyed by its workspace-relative
 * real path. argv[0] counts only with a slash (a bare name is looked up on PATH, not in `cwd`).
 * Files outside the workspace are not the repository's to change and are left out.
 */
export function namedFileDigests(argv: readonly string[], cwd: string, workspace: string): Record<string, string> {
  const ws = realOrNull(workspace) ?? workspace;
  const files: Record<string, string> = {};
  argv.forEach((a, i) => {
    if (a === "" || a.includes("\0") || (i === 0 && !a.includes("/"))) return;
    const abs = realOrNull(resolve(cwd, a));
    if (abs === null || !isInside(ws, abs)) return;
    const key = relative(ws, abs);
    if (key in files) return;
    const digest = fileDigest(abs);
    if (digest !== null) files[key] = digest;
  });
  return files;
}

/** sha256 of a regular file's content, read in chunks (an argument may name a large file); null otherwise. */
export function fileDigest(path: string): string | null {
  try {
    if (!statSync(path).isFile()) return null;
    const fd = openSync(path, "r");
    try {
      const hash = sha256();
      const buf = Buffer.allocUnsafe(CHUNK);
      for (let n = readSync(fd, buf, 0, CHUNK, null); n > 0; n = readSync(fd, buf, 0, CHUNK, null))
        hash.update(buf.subarray(0, n));
      return hash.digest("hex");
    } finally {
      closeSync(fd);
    }
  } catch {
    return null; // unreadable: the manifest check names a missing program; others are the tool's business
  }
}
