// file_search: content search of workspace files, line by line, .gitignore respected. Answers
// path + line number + the clipped line, never a body; skipped and clipped things are counted.
// The per-file work is in scan.ts, spread over threads by pool.ts.
import { defineTool } from "../../catalog/declare.ts";
import { refuse, type Outcome } from "../../result/result.ts";
import type { Pool } from "./pool.ts";
import type { ScanSpec } from "./scan.ts";
import { ancestry, walk } from "../files/walk.ts";
import { globMatcher } from "../files/glob.ts";
import { CHANGED, changedMessage, kindAt } from "../../fs/opened.ts";
import { relativeInside, resolveInside, targetInside } from "../files/workspace.ts";
import description from "./file-search.txt" with { type: "text" };

export const WALK_BUDGET = 200_000;
/** Files above this are not read (`skippedLarge`). */
export const LARGE_BYTES = 8 * 1024 * 1024;
/** Characters of a line shown; longer lines show a window around the match. */
export const LINE_CHARS = 300;
/** The matches of one answer, as the output boundary measures them: well under its 64 KiB. */
export const ANSWER_BOUND_BYTES = 40_000;
/** Bytes one call reads at most; past them the answer is truncated with a cursor. */
export const READ_BUDGET_BYTES = 1024 * 1024 * 1024;
const DEFAULT_LIMIT = 200;

export interface SearchArgs {
  readonly pattern: string;
  readonly literal?: boolean;
  readonly glob?: string;
  readonly path?: string;
  readonly ignoreCase?: boolean;
  readonly cursor?: string;
  readonly limit?: number;
}

export default defineTool({
  name: "file_search",
  description: description.trimEnd(),
  input: (type) =>
    type({
      "+": "reject",
      pattern: "0 < string <= 2000",
      "literal?": "boolean",
      "glob?": "string > 0",
      "path?": "string > 0",
      "ignoreCase?": "boolean",
      "cursor?": "string > 0",
      "limit?": "1 <= number.integer <= 1000",
    }),
  effect: "read",
  approval: "required",
  needs: (args, ctx) => {
    const r = resolveInside(ctx.workspace, args.path ?? ".");
    return r.ok ? { ok: true, value: [{ kind: "read", value: r.value.abs, recursive: true }] } : r;
  },
  handler: (args, ctx) =>
    searchFiles(
      {
        workspace: ctx.workspace,
        stateDir: ctx.stateDir,
        signal: ctx.signal,
        ...(ctx.checked ? { checked: ctx.checked[0]?.value } : {}),
        ...(ctx.namedSecret ? { namedSecret: ctx.namedSecret } : {}),
      },
      args,
    ),
});

/** Where a search runs; the budgets are the defaults except in tests. */
export interface SearchScope {
  readonly workspace: string;
  readonly stateDir: string;
  readonly signal: AbortSignal;
  readonly walkBudget?: number;
  readonly readBudget?: number;
  /** The real path the permission stage checked for `path` (the pipeline passes it). */
  readonly checked?: string | undefined;
  /** The well-known secret files the read grants name: a walk searches those, and skips (counts) the others. */
  readonly namedSecret?: (abs: string) => boolean;
}

export async function searchFiles(scope: SearchScope, args: SearchArgs): Promise<Outcome<unknown>> {
  // The scan machinery on the first search, not at import: this tool is in every boot's catalog.
  const [{ assemblePage }, { Helper, Pool }, { escapeRegExp, requiredNeedles }] = await Promise.all([
    import("./page.ts"),
    import("./pool.ts"),
    import("./literal.ts"),
  ]);
  const { workspace, stateDir, signal } = scope;
  const readBudget = scope.readBudget ?? READ_BUDGET_BYTES;
  const ignoreCase = args.ignoreCase === true;
  const source = args.literal ? escapeRegExp(args.pattern) : args.pattern;
  try {
    new RegExp(source, ignoreCase ? "iu" : "u");
  } catch (e) {
    return refuse(
      "find.invalid",
      `invalid regular expression ${JSON.stringify(args.pattern)}: ${(e as Error).message}; the syntax is ` +
        `JavaScript's with the u flag, or pass literal: true to search a fixed string`,
    );
  }
  const cursor = args.cursor === undefined ? null : /^(.*):(\d+)$/s.exec(args.cursor);
  if (args.cursor !== undefined && !cursor)
    return refuse("args.invalid", `cursor ${JSON.stringify(args.cursor)} is not one file_search returned (nextCursor)`);
  const r = targetInside(workspace, args.path ?? ".", scope.checked);
  if (!r.ok) return r;
  const { abs, rel } = r.value;
  const kind = kindAt(abs);
  if (kind === CHANGED) return refuse("path.changed", changedMessage(rel, "nothing was searched"));
  if (kind !== "dir" && kind !== "file" && kind !== "other")
    return refuse("file.missing", `"${rel}" does not exist; file_find lists what does`);
  const isDir = kind === "dir";
  const root = resolveInside(workspace, ".");
  if (!root.ok) return root;

  const [cursorPath, cursorLine] = cursor ? [cursor[1]!, Number(cursor[2])] : ["", 0];
  const limit = args.limit ?? DEFAULT_LIMIT;
  const spec: ScanSpec = {
    source,
    ignoreCase,
    needles: requiredNeedles(source, ignoreCase),
    largeBytes: LARGE_BYTES,
    lineChars: LINE_CHARS,
    perFile: limit + 1,
  };
  const setup = {
    base: root.value.abs,
    spec,
    firstAfter: (first: string) => (first === cursorPath ? cursorLine : 0),
    enoughMatches: limit,
    enoughBytes: readBudget,
    signal,
  };

  let pool: Pool;
  let scanCapped = false;
  let skippedSecretFiles = 0;
  let pathIgnored = false;
  if (isDir) {
    const matches = args.glob === undefined ? null : globMatcher(args.glob, "glob", "searched");
    if (matches && !matches.ok) return matches;
    // The helpers start now (their start-up overlaps the walk's first folders) and search while it goes on.
    pool = new Pool(setup, Helper.start());
    const relRoot = rel === "." ? "" : rel;
    const stateRel = relativeInside(workspace, stateDir);
    const skip = new Set<string>(stateRel !== null && stateRel !== "." ? [stateRel] : []);
    const pick = (f: string) => matches === null || matches.value(relRoot === "" ? f : f.slice(relRoot.length + 1));
    // The walk lists files in sorted order (UTF-16 code units): those the glob keeps, from the cursor's file on,
    // are the job.
    let seen = 0;
    const take = (found: readonly string[]) => {
      for (; seen < found.length; seen++) {
        const f = found[seen]!;
        if ((cursor === null || f >= cursorPath) && pick(f)) pool.files.push(f);
      }
      pool.offer();
    };
    const { layers, excluded } = ancestry(workspace, relRoot, skip);
    const walked = excluded
      ? { files: [], scanCapped: false, secretFiles: [] }
      : walk({
          root: abs,
          relRoot,
          skip,
          budget: scope.walkBudget ?? WALK_BUDGET,
          layers,
          progress: take,
          ...(scope.namedSecret ? { namedSecret: scope.namedSecret } : {}),
        });
    take(walked.files);
    pathIgnored = excluded;
    scanCapped = walked.scanCapped;
    // The secret files the glob would have searched: left out, counted.
    skippedSecretFiles = walked.secretFiles.filter(pick).length;
  } else {
    pool = new Pool(setup, []);
    // a file named as path is searched even if ignored, as ripgrep does
    if (cursor === null || rel >= cursorPath) pool.files.push(rel);
  }
  const files = pool.files;
  const prefix = await pool.finish();

  const page = assemblePage(prefix, files, limit, ANSWER_BOUND_BYTES, readBudget);
  return {
    ok: true,
    value: {
      pattern: args.pattern,
      path: rel,
      matches: page.matches,
      count: page.matches.length,
      filesSearched: page.filesSearched,
      skippedBinary: page.skippedBinary,
      skippedLarge: page.skippedLarge,
      skippedUnreadable: page.skippedUnreadable,
      skippedSecretFiles,
      clippedLines: page.clippedLines,
      truncated: page.nextCursor !== undefined,
      ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
      scanCapped,
      ...(pathIgnored ? { pathIgnored: true } : {}),
    },
  };
}
