// A bounded walk of the workspace that respects .gitignore files (nested ones too),
// never descends into .git or the state folder, and never follows directory symlinks.
// It lists what `git ls-files --others` would consider: regular files and symlinks, in path order.
// Each folder is opened and verified (src/fs/opened.ts) before it is listed, and listed through
// its descriptor: a folder swapped for a symlink mid-walk is skipped, never walked out of the tree.
// Well-known secret files (.env, *.pem, id_rsa, ...) are left out and counted, unless the user
// named that file in a read grant (docs/permissions.md).
import { closeSync, fstatSync, readdirSync, readFileSync, type Dirent } from "node:fs";
import { join } from "node:path";
import type { Ignore } from "ignore";
import { inDir, O_DIR, O_FILE, openChecked, openIn } from "../../fs/opened.ts";
import { resolveReal } from "../../fs/real-path.ts";
import { isSecretName } from "../../fs/secret-files.ts";

export interface WalkOptions {
  /** Real path of the directory to start in. */
  readonly root: string;
  /** Workspace-relative path of `root` ("" for the workspace itself). */
  readonly relRoot: string;
  /** Workspace-relative folders never entered (the state folder). */
  readonly skip: ReadonlySet<string>;
  /** Most directory entries the walk may look at before it stops (`scanCapped`). */
  readonly budget: number;
  /** Gitignore layers of the ancestors of `root`, outermost first. */
  readonly layers?: readonly Layer[];
  /**
   * Whether a secret file (by its absolute path) was named in a read grant, so the walk keeps it. Absent: none is
   * kept.
   */
  readonly namedSecret?: (abs: string) => boolean;
  /** Called before each folder is listed, with the files found so far (in order; the array grows). */
  readonly progress?: (files: readonly string[]) => void;
}

export interface Layer {
  readonly base: string; // workspace-relative folder holding the .gitignore ("" at the root)
  readonly rules: Ignore;
}

export interface WalkResult {
  readonly files: string[]; // workspace-relative, sorted (see walk)
  readonly visited: number;
  readonly scanCapped: boolean;
  /** Well-known secret files left out, workspace-relative (not ignored ones: those are never listed anyway). */
  readonly secretFiles: string[];
}

/** The .gitignore layer of a folder, read by its real path (verified) or through its open descriptor. */
function readLayer(dir: string | number, relDir: string): Layer | null {
  const text = readGitignore(dir);
  if (text === null) return null;
  // The library on first use, not at import: file_find and file_search are in every boot's catalog.
  const ignore = require("ignore") as typeof import("ignore");
  // Case-sensitive, as git is by default (core.ignoreCase=false); the library's default is not.
  const rules = ignore({ ignorecase: false }).add(text);
  lowerTiers(rules);
  return { base: relDir, rules };
}

/** Like git: a symlinked .gitignore is not followed (it could lead out), and a pipe is not waited on. */
function readGitignore(dir: string | number): string | null {
  let fd: number;
  if (typeof dir === "number") {
    try {
      fd = openIn(dir, ".gitignore", O_FILE);
    } catch {
      return null;
    }
  } else {
    const opened = openChecked(join(dir, ".gitignore"), O_FILE);
    if (!opened.ok) return null;
    fd = opened.fd;
  }
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd, "utf8") : null;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Git's rule: the deepest layer that has an opinion decides; negation can re-include. */
export function isIgnored(layers: readonly Layer[], rel: string, isDir: boolean): boolean {
  let ignored = false;
  for (const l of layers) {
    const sub = l.base === "" ? rel : rel.slice(l.base.length + 1);
    const r = l.rules.test(isDir ? `${sub}/` : sub);
    if (r.ignored) ignored = true;
    else if (r.unignored) ignored = false;
  }
  return ignored;
}

/** Gitignore layers for every folder from the workspace root down to (and including) `relDir`'s parents. */
export function ancestorLayers(workspace: string, relDir: string): Layer[] {
  return ancestry(workspace, relDir, new Set()).layers;
}

/**
 * The ancestor layers of `relDir`, and whether the walk would never reach it: it, or a folder
 * above it, is `.git`, a skipped folder, or ignored by the layers above it (git's rule: nothing
 * inside an excluded folder is listed, so a narrowed listing agrees with the whole one).
 */
export function ancestry(
  workspace: string,
  relDir: string,
  skip: ReadonlySet<string>,
): { layers: Layer[]; excluded: boolean } {
  const layers: Layer[] = [];
  workspace = resolveReal(workspace, "/") ?? workspace; // the .gitignore files are opened by real path, then verified
  const parts = relDir === "" || relDir === "." ? [] : relDir.split("/");
  for (let i = 0; i < parts.length; i++) {
    const parent = parts.slice(0, i).join("/");
    const l = readLayer(join(workspace, parent), parent);
    if (l) layers.push(l);
    const rel = parts.slice(0, i + 1).join("/");
    if (parts[i] === ".git" || skip.has(rel) || isIgnored(layers, rel, true)) return { layers, excluded: true };
  }
  return { layers, excluded: false };
}

/**
 * Lists the tree depth first, each folder's entries in order of their full paths (a folder sorts as
 * its name and a "/"), so files come out sorted by path in UTF-16 code-unit order, as
 * `Array.prototype.sort` would put them: a caller can act on the first ones while the walk goes on.
 */
export function walk(opts: WalkOptions): WalkResult {
  lowerTiers();
  const files: string[] = [];
  let visited = 0;
  let capped = false;
  const secretFiles: string[] = [];
  const stack: { abs: string; rel: string; layers: readonly Layer[]; entries: Dirent[]; next: number }[] = [];
  const enter = (abs: string, rel: string, above: readonly Layer[]) => {
    opts.progress?.(files);
    // The folder at exactly this path (no link swapped in since it was listed), or it is skipped.
    const opened = openChecked(abs, O_DIR);
    if (!opened.ok) return;
    let entries: Dirent[];
    let own: Layer | null = null;
    try {
      entries = readdirSync(inDir(opened.fd, "."), { withFileTypes: true });
      // Opened only when listed: a failed open per folder costs more than the whole listing.
      if (hasGitignore(entries)) own = readLayer(opened.fd, rel);
    } catch {
      return;
    } finally {
      closeSync(opened.fd);
    }
    stack.push({ abs, rel, layers: own ? [...above, own] : above, entries: inPathOrder(entries), next: 0 });
  };
  enter(opts.root, opts.relRoot === "." ? "" : opts.relRoot, opts.layers ?? []);
  while (stack.length > 0) {
    const dir = stack[stack.length - 1]!;
    if (dir.next >= dir.entries.length) {
      stack.pop();
      continue;
    }
    const ent = dir.entries[dir.next++]!;
    if (++visited > opts.budget) {
      capped = true;
      break;
    }
    const name = ent.name;
    const rel = dir.rel === "" ? name : `${dir.rel}/${name}`;
    if (name === ".git") continue; // a folder, or a file in a worktree or submodule: never listed
    if (ent.isDirectory()) {
      if (opts.skip.has(rel) || isIgnored(dir.layers, rel, true)) continue;
      enter(join(dir.abs, name), rel, dir.layers);
    } else if ((ent.isFile() || ent.isSymbolicLink()) && !isIgnored(dir.layers, rel, false)) {
      if (isSecretName(name) && opts.namedSecret?.(join(dir.abs, name)) !== true) secretFiles.push(rel);
      else files.push(rel); // a symlink is listed as itself, never followed (git does the same)
    }
  }
  return { files, visited: Math.min(visited, opts.budget), scanCapped: capped, secretFiles };
}

/** A folder's entries in the order of the paths below it: a folder sorts as "name/" (so "a-b" < "a/x" < "a0"). */
function inPathOrder(entries: Dirent[]): Dirent[] {
  const keyed: [string, Dirent][] = [];
  for (const e of entries) keyed.push([e.isDirectory() ? `${e.name}/` : e.name, e]);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const out: Dirent[] = [];
  for (const k of keyed) out.push(k[1]);
  return out;
}

/** Whether a listing holds a .gitignore. */
function hasGitignore(entries: Dirent[]): boolean {
  for (const e of entries) if (e.name === ".gitignore") return true;
  return false;
}

// A walk runs these once per entry, thousands of times, once per process: JavaScriptCore's top
// tier (FTL) would spend more compiling them than it saves (scripts/bench-search.ts); the tiers
// below it stay. So do the ignore library's per-path methods. Marked on the first walk (bun:jsc is
// loaded then, not at import: a start that walks nothing never loads it).
let tiered = false;
let ignoreTiered = false;
function lowerTiers(ig?: Ignore): void {
  if (tiered && (ig === undefined || ignoreTiered)) return;
  const { noFTL } = require("bun:jsc") as typeof import("bun:jsc");
  if (!tiered) for (const f of [walk, isIgnored, hasGitignore, inPathOrder, isSecretName]) noFTL(f);
  tiered = true;
  if (ig === undefined) return;
  ignoreTiered = true;
  const proto = Object.getPrototypeOf(ig);
  const rules = (ig as unknown as { _rules?: object })._rules;
  for (const f of [proto.test, proto._test, proto._t, rules && Object.getPrototypeOf(rules).test])
    if (typeof f === "function") noFTL(f);
}
