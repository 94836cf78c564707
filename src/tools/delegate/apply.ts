// apply_change's three-way apply: for each file the child changed, the checkout's current bytes,
// the base the child started from and the child's bytes (both from the change's own git folder,
// never from the tree the child wrote). Unchanged since the base: the child's
// version; changed on both sides: `git merge-file`; a conflict anywhere: nothing is written at all.
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { ProcessRunner } from "../../catalog/declare.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";
import { removeTree } from "../gates/copy.ts";
import type { ChangeRecord } from "./change.ts";
import { checkoutFiles, sealedGit } from "./sealed-git.ts";

type Bytes = Buffer | null;

interface Planned {
  readonly path: string;
  /** null: delete the file. */
  readonly bytes: Bytes;
  readonly mode: number | null;
  readonly how: "child" | "merged";
}

/** A regular file's bytes, null when absent; "other" for a link, folder or device (never merged). */
function readRegular(p: string): Bytes | "other" {
  try {
    const st = lstatSync(p);
    return st.isFile() ? readFileSync(p) : "other";
  } catch {
    return null;
  }
}

const same = (a: Bytes, b: Bytes) => (a === null || b === null ? a === b : a.equals(b));

/** The changed files as they were at the base and as the child left them, written under `<worktree>.apply` by git from the change's folder. */
async function checkouts(p: ProcessRunner, rec: ChangeRecord & { git_dir: string; change: string }): Promise<Outcome<{ dir: string; base: string; neu: string }>> {
  const dir = `${rec.worktree}.apply`;
  removeTree(dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const paths = rec.files.map((f) => f.path);
  const out = { dir, base: join(dir, "base"), neu: join(dir, "change") };
  const base = await checkoutFiles(p, rec.git_dir, rec.base, paths, out.base);
  if (!base.ok) return base;
  const neu = await checkoutFiles(p, rec.git_dir, rec.change, paths, out.neu);
  if (!neu.ok) return neu;
  return ok(out);
}

/** Plans every file, or refuses listing the files that conflict; writes nothing. */
export async function planApply(p: ProcessRunner, rec: ChangeRecord & { git_dir: string; change: string }, protectedPaths: readonly string[]): Promise<Outcome<Planned[]>> {
  const top = realpathSync(rec.top);
  const guarded = rec.files.map((f) => f.path).filter((rel) => {
    const abs = resolve(top, rel);
    return rel.split("/").includes(".git") || protectedPaths.some((c) => abs === c || abs.startsWith(`${c}/`)) || !safeParent(top, abs);
  });
  if (guarded.length > 0) return refuse("change.protected", `the change touches files apply_change never writes (toolgate's control files, .git, or a path through a link): ${guarded.join(", ")}`, { files: guarded });
  const files = await checkouts(p, rec);
  if (!files.ok) return files;
  const { dir, base, neu: changed } = files.value;
  const planned: Planned[] = [];
  const conflicts: string[] = [];
  for (const [i, f] of rec.files.entries()) {
    const cur = readRegular(join(top, f.path));
    const old = readRegular(join(base, f.path));
    const neu = readRegular(join(changed, f.path));
    if (cur === "other" || old === "other" || neu === "other") {
      conflicts.push(f.path);
      continue;
    }
    const mode = neu === null ? null : statSync(join(changed, f.path)).mode & 0o777;
    if (same(cur, neu)) continue;
    if (same(cur, old)) {
      planned.push({ path: f.path, bytes: neu, mode, how: "child" });
      continue;
    }
    if (cur === null || old === null || neu === null) {
      conflicts.push(f.path);
      continue;
    }
    // Both sides changed the file: git's own three-way merge of the bytes, on a copy.
    const tmp = join(dir, `merge-${i}`);
    writeFileSync(tmp, cur);
    const m = await sealedGit(p, { gitDir: rec.git_dir, workTree: null }, ["merge-file", "-q", tmp, join(base, f.path), join(changed, f.path)]);
    if (!m.ok) return m;
    if (m.value.code !== 0) conflicts.push(f.path);
    else planned.push({ path: f.path, bytes: readFileSync(tmp), mode, how: "merged" });
  }
  removeTree(dir);
  if (conflicts.length > 0) {
    return refuse("change.conflict", `the change conflicts with the checkout in ${conflicts.length} file${conflicts.length === 1 ? "" : "s"}: ${conflicts.join(", ")}; nothing was written (discard it with {"change_id": "${rec.id}", "discard": true}, or resolve by hand and discard)`, { files: conflicts });
  }
  return ok(planned);
}

/** Every folder from the top to the file that exists is a real folder inside the top (no link leads out). */
function safeParent(top: string, abs: string): boolean {
  let dir = dirname(abs);
  while (!existsSync(dir)) dir = dirname(dir);
  try {
    const real = realpathSync(dir);
    return (real === top || real.startsWith(`${top}/`)) && relative(top, dir) === relative(top, real);
  } catch {
    return false;
  }
}

/** Writes the plan (after planApply found no conflict). */
export function writePlan(top: string, plan: readonly Planned[]): void {
  for (const f of plan) {
    const abs = join(top, f.path);
    if (f.bytes === null) {
      rmSync(abs, { force: true });
      continue;
    }
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, f.bytes);
    if (f.mode !== null) chmodSync(abs, f.mode);
  }
}
