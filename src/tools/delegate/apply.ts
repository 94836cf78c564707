// apply_change's three-way apply: for each file the child changed, the checkout's current bytes,
// the base the child started from and the child's bytes. Unchanged since the base: the child's
// version; changed on both sides: `git merge-file`; a conflict anywhere: nothing is written at all.
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { ProcessRunner } from "../../catalog/declare.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";
import { git, removeTree } from "../gates/copy.ts";
import type { ChangeRecord } from "./change.ts";

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

/** The base's bytes of the changed files, written under `<worktree>.base` by git itself. */
async function baseFiles(p: ProcessRunner, rec: ChangeRecord): Promise<Outcome<string>> {
  const dir = `${rec.worktree}.base`;
  removeTree(dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const paths = rec.files.map((f) => f.path);
  const ls = await git(p, rec.worktree, ["ls-tree", "-r", "-z", "--name-only", rec.base, "--", ...paths]);
  if (!ls.ok) return ls;
  const atBase = ls.value.out.split("\0").filter(Boolean);
  if (atBase.length > 0) {
    const co = await git(p, rec.worktree, ["--work-tree", dir, "checkout", rec.base, "--", ...atBase]);
    if (!co.ok) return co;
    if (co.value.code !== 0) return refuse("change.failed", `reading the change's base failed: ${co.value.err}`);
  }
  return ok(dir);
}

/** Plans every file, or refuses listing the files that conflict; writes nothing. */
export async function planApply(p: ProcessRunner, rec: ChangeRecord, protectedPaths: readonly string[]): Promise<Outcome<Planned[]>> {
  const top = realpathSync(rec.top);
  const guarded = rec.files.map((f) => f.path).filter((rel) => {
    const abs = resolve(top, rel);
    return rel.split("/").includes(".git") || protectedPaths.some((c) => abs === c || abs.startsWith(`${c}/`)) || !safeParent(top, abs);
  });
  if (guarded.length > 0) return refuse("change.protected", `the change touches files apply_change never writes (toolgate's control files, .git, or a path through a link): ${guarded.join(", ")}`, { files: guarded });
  const base = await baseFiles(p, rec);
  if (!base.ok) return base;
  const planned: Planned[] = [];
  const conflicts: string[] = [];
  for (const [i, f] of rec.files.entries()) {
    const cur = readRegular(join(top, f.path));
    const old = readRegular(join(base.value, f.path));
    const neu = readRegular(join(rec.worktree, f.path));
    if (cur === "other" || old === "other" || neu === "other") {
      conflicts.push(f.path);
      continue;
    }
    const mode = neu === null ? null : statSync(join(rec.worktree, f.path)).mode & 0o777;
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
    const tmp = join(base.value, `.merge-${i}`);
    writeFileSync(tmp, cur);
    const m = await git(p, rec.worktree, ["merge-file", "-q", tmp, join(base.value, f.path), join(rec.worktree, f.path)]);
    if (!m.ok) return m;
    if (m.value.code !== 0) conflicts.push(f.path);
    else planned.push({ path: f.path, bytes: readFileSync(tmp), mode, how: "merged" });
  }
  removeTree(base.value);
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
