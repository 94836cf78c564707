// A bounded walk of the workspace that respects .gitignore files (nested ones too),
// never descends into .git or the state folder, and never follows directory symlinks.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ignore, { type Ignore } from "ignore";

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
}

export interface Layer {
  readonly base: string; // workspace-relative folder holding the .gitignore ("" at the root)
  readonly rules: Ignore;
}

export interface WalkResult {
  readonly files: string[]; // workspace-relative, unsorted
  readonly visited: number;
  readonly scanCapped: boolean;
}

function readLayer(absDir: string, relDir: string): Layer | null {
  let text: string;
  try {
    text = readFileSync(join(absDir, ".gitignore"), "utf8");
  } catch {
    return null;
  }
  return { base: relDir, rules: ignore().add(text) };
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
  const layers: Layer[] = [];
  const parts = relDir === "" || relDir === "." ? [] : relDir.split("/");
  for (let i = 0; i < parts.length; i++) {
    const rel = parts.slice(0, i).join("/");
    const l = readLayer(join(workspace, rel), rel);
    if (l) layers.push(l);
  }
  return layers;
}

export function walk(opts: WalkOptions): WalkResult {
  const files: string[] = [];
  let visited = 0;
  let capped = false;
  const stack: { abs: string; rel: string; layers: readonly Layer[] }[] = [
    { abs: opts.root, rel: opts.relRoot === "." ? "" : opts.relRoot, layers: opts.layers ?? [] },
  ];
  while (stack.length > 0 && !capped) {
    const dir = stack.pop()!;
    const own = readLayer(dir.abs, dir.rel);
    const layers = own ? [...dir.layers, own] : dir.layers;
    let entries;
    try {
      entries = readdirSync(dir.abs, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const ent of entries) {
      if (++visited > opts.budget) {
        capped = true;
        break;
      }
      const name = ent.name;
      const rel = dir.rel === "" ? name : `${dir.rel}/${name}`;
      if (ent.isDirectory()) {
        if (name === ".git" || opts.skip.has(rel) || isIgnored(layers, rel, true)) continue;
        stack.push({ abs: join(dir.abs, name), rel, layers });
      } else if (!isIgnored(layers, rel, false)) {
        files.push(rel);
      }
    }
  }
  return { files, visited: Math.min(visited, opts.budget), scanCapped: capped };
}
