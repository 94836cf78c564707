// What an authored tool runs, for its digest (SPEC "The approval digest covers what runs"): the
// whole manifest as written, the argv spawned, the program's real path, and the sha256 of each
// file the command names inside the workspace (the executable, a script handed to an interpreter).
// Read at boot, so the catalog itself stays pure. Files it merely imports are not covered.
import { createHash } from "node:crypto";
import { readFileSync, realpathSync, statSync } from "node:fs";
import { relative, resolve } from "node:path";

const isInside = (root: string, p: string) => {
  const rel = relative(root, p);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith("/"));
};

/** Arguments that name a file: argv[0] with a slash, later ones starting with ./ or ../ (as the launcher resolves them). */
const pathArgs = (command: readonly string[], folder: string): string[] =>
  command.flatMap((a, i) => ((i === 0 ? a.includes("/") : a.startsWith("./") || a.startsWith("../")) ? [resolve(folder, a)] : []));

export function authoredIdentity(manifest: unknown, command: readonly string[], argv: readonly string[], program: string, folder: string, workspace: string): Record<string, unknown> {
  const files: Record<string, string> = {};
  const ws = real(workspace);
  for (const abs of new Set([program, ...pathArgs(command, folder).map(real)])) {
    if (!isInside(ws, abs)) continue;
    try {
      if (!statSync(abs).isFile()) continue;
      files[relative(ws, abs)] = createHash("sha256").update(readFileSync(abs)).digest("hex");
    } catch {
      // Unreadable: the manifest check already named a missing program; others are the tool's business.
    }
  }
  // Workspace-relative where it can be: the same checkout elsewhere (another clone) keeps its digests and lock.
  return { manifest, argv, program: isInside(ws, program) ? relative(ws, program) : program, files };
}

function real(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
