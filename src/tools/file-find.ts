// file_find: a sorted, bounded glob listing of workspace-relative paths; .gitignore respected.
import { statSync } from "node:fs";
import { defineTool } from "../catalog/declare.ts";
import { refuse, type Outcome } from "../result/result.ts";
import { resolveInside } from "./workspace.ts";
import { ancestorLayers, walk } from "./walk.ts";

export const WALK_BUDGET = 200_000;
export const ANSWER_BOUND_CHARS = 40_000;

export default defineTool({
  name: "file_find",
  description:
    "List workspace files matching a glob (default **/*), sorted, workspace-relative, .gitignore respected. Long lists come back truncated with nextCursor (pass it as cursor); scanCapped means the walk budget ran out.",
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
    return r.ok ? { ok: true, value: [{ kind: "read", value: r.value.abs }] } : r;
  },
  handler: async (args, ctx) =>
    findFiles(ctx.workspace, ctx.stateDir, args.pattern ?? "**/*", args.path ?? ".", args.cursor, args.limit ?? 1000),
});

export function findFiles(workspace: string, stateDir: string, pattern: string, path: string, cursor: string | undefined, limit: number): Outcome<unknown> {
  const r = resolveInside(workspace, path);
  if (!r.ok) return r;
  const { abs, rel } = r.value;
  let isDir = false;
  try {
    isDir = statSync(abs).isDirectory();
  } catch {
    return refuse("file.missing", `"${rel}" does not exist`);
  }
  if (!isDir) return refuse("file.not_a_directory", `"${rel}" is a file; give a folder as path`);
  const glob = new Bun.Glob(pattern);
  const relRoot = rel === "." ? "" : rel;
  const stateRel = resolveInside(workspace, stateDir);
  const skip = new Set<string>(stateRel.ok && stateRel.value.rel !== "." ? [stateRel.value.rel] : []);
  const res = walk({ root: abs, relRoot, skip, budget: WALK_BUDGET, layers: ancestorLayers(workspace, relRoot) });
  const matched = res.files
    .filter((f) => glob.match(relRoot === "" ? f : f.slice(relRoot.length + 1)))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const start = cursor === undefined ? 0 : upperBound(matched, cursor);
  const paths: string[] = [];
  let chars = 0;
  for (let i = start; i < matched.length && paths.length < limit; i++) {
    const p = matched[i]!;
    if (chars + p.length + 3 > ANSWER_BOUND_CHARS && paths.length > 0) break;
    paths.push(p);
    chars += p.length + 3;
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
    },
  };
}

/** First index whose path sorts after `cursor`. */
function upperBound(sorted: readonly string[], cursor: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= cursor) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
