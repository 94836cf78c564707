// What an authored tool runs, for its digest (the approval digest covers what runs): the
// whole manifest as written, the argv spawned, the program's real path, and the sha256 of the
// program and of every workspace file an argument names as the child (cwd: the workspace) resolves
// it, so `["bash", "scripts/fmt.sh"]` covers scripts/fmt.sh. Files it merely imports are not covered.
import { relative } from "node:path";
import { fileDigest, namedFileDigests, realOrNull } from "./named-files.ts";

const isInside = (root: string, p: string) => {
  const rel = relative(root, p);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith("/"));
};

/** `argv` is the spawned one: `./` and `../` arguments already made workspace-relative or absolute. */
export function authoredIdentity(
  manifest: unknown,
  argv: readonly string[],
  program: string,
  workspace: string,
): Record<string, unknown> {
  const ws = realOrNull(workspace) ?? workspace;
  const files: Record<string, string> = {};
  const programDigest = isInside(ws, program) ? fileDigest(program) : null;
  if (programDigest !== null) files[relative(ws, program)] = programDigest;
  Object.assign(files, namedFileDigests(argv, ws, ws));
  // Workspace-relative where it can be: the same checkout elsewhere (another clone) keeps its digests and lock.
  return { manifest, argv, program: isInside(ws, program) ? relative(ws, program) : program, files };
}
