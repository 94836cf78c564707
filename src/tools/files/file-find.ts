// file_find: a sorted, bounded glob listing of workspace-relative paths; .gitignore respected.
import { defineTool } from "../../catalog/declare.ts";
import { refuse, type Outcome } from "../../result/result.ts";
import { bisect } from "./bisect.ts";
import { globMatcher } from "./glob.ts";
import { CHANGED, changedMessage, kindAt } from "../../fs/opened.ts";
import { relativeInside, resolveInside, targetInside } from "./workspace.ts";
import { ancestry, walk } from "./walk.ts";
import description from "./file-find.txt" with { type: "text" };

export const WALK_BUDGET = 200_000;
/**
 * The listed paths (and the cursor), measured as the output boundary measures them: UTF-8 bytes once JSON-serialized.
 */
export const ANSWER_BOUND_CHARS = 40_000;

export default defineTool({
  name: "file_find",
  description: description.trimEnd(),
  input: (type) =>
    type({
      "+": "reject",
      "pattern?": "string > 0",
      "path?": "string > 0",
      "cursor?": "string",
      "limit?": "1 <= number.integer <= 5000",
    }),
  effect: "read",
  approval: "required",
  needs: (args, ctx) => {
    const r = resolveInside(ctx.workspace, args.path ?? ".");
    return r.ok ? { ok: true, value: [{ kind: "read", value: r.value.abs, recursive: true }] } : r;
  },
  handler: async (args, ctx) =>
    findFiles(
      ctx.workspace,
      ctx.stateDir,
      args.pattern ?? "**/*",
      args.path ?? ".",
      args.cursor,
      args.limit ?? 1000,
      WALK_BUDGET,
      ctx.checked?.[0]?.value,
      ctx.namedSecret,
    ),
});

/**
 * `budget` is the walk's entry budget; only tests pass anything but the default. `checked`: the
 * real path the permission stage checked. `namedSecret`: the secret files the read grants name (listed).
 */
export function findFiles(
  workspace: string,
  stateDir: string,
  pattern: string,
  path: string,
  cursor: string | undefined,
  limit: number,
  budget: number = WALK_BUDGET,
  checked?: string,
  namedSecret?: (abs: string) => boolean,
): Outcome<unknown> {
  const r = targetInside(workspace, path, checked);
  if (!r.ok) return r;
  const { abs, rel } = r.value;
  const matches = globMatcher(pattern);
  if (!matches.ok) return matches;
  const kind = kindAt(abs);
  if (kind === CHANGED) return refuse("path.changed", changedMessage(rel, "nothing was listed"));
  if (kind === "file" || kind === "other")
    return refuse("file.not_a_directory", `"${rel}" is a file; give a folder as path`);
  if (kind !== "dir") return refuse("file.missing", `"${rel}" does not exist`);
  const relRoot = rel === "." ? "" : rel;
  // stateDir is absolute (the config makes it so): compare it as a workspace-relative path.
  const stateRel = relativeInside(workspace, stateDir);
  const skip = new Set<string>(stateRel !== null && stateRel !== "." ? [stateRel] : []);
  const { layers, excluded } = ancestry(workspace, relRoot, skip);
  const res = excluded
    ? { files: [], scanCapped: false, secretFiles: [] }
    : walk({ root: abs, relRoot, skip, budget, layers, ...(namedSecret ? { namedSecret } : {}) });
  const pick = (f: string) => matches.value(relRoot === "" ? f : f.slice(relRoot.length + 1));
  // Already in path order: the walk lists files sorted by whole path (walk.ts, test/tools/files/walk.test.ts).
  const matched = res.files.filter(pick);
  const start = cursor === undefined ? 0 : bisect(matched, cursor, true);
  const paths: string[] = [];
  let bytes = 0;
  for (let i = start; i < matched.length && paths.length < limit; i++) {
    const p = matched[i]!;
    const cost = Buffer.byteLength(JSON.stringify(p), "utf8") + 1; // quotes, and a comma
    // Room is kept for this path once more, as nextCursor.
    if (bytes + 2 * cost > ANSWER_BOUND_CHARS && paths.length > 0) break;
    paths.push(p);
    bytes += cost;
  }
  const truncated = start + paths.length < matched.length;
  return {
    ok: true,
    value: {
      pattern,
      path: rel,
      paths,
      count: paths.length,
      total: matched.length,
      truncated,
      ...(truncated ? { nextCursor: paths[paths.length - 1] } : {}),
      scanCapped: res.scanCapped,
      // The secret files the pattern would have listed: left out, counted.
      skippedSecretFiles: res.secretFiles.filter(pick).length,
      ...(excluded ? { pathIgnored: true } : {}),
    },
  };
}
