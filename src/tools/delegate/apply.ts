// apply_change's three-way apply: for each file the child changed, the checkout's current bytes,
// the base the child started from and the child's bytes (both from the change's own git folder,
// never from the tree the child wrote). Unchanged since the base: the child's version; changed on
// both sides: `git merge-file`; a conflict anywhere: nothing is written at all. The checkout is
// read and written through folder descriptors (checkout-io.ts), never through a link.
import { lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { ProcessRunner } from "../../catalog/declare.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";
import { refuseProtected } from "../files/protected.ts";
import { isInside } from "../files/workspace.ts";
import { removeTree } from "../gates/copy.ts";
import type { ChangeRecord } from "./change.ts";
import { CheckoutFolders, type Current } from "./checkout-io.ts";
import { checkoutFiles, sealedGit } from "./sealed-git.ts";

type Bytes = Buffer | null;

export interface Planned {
  readonly path: string;
  /** null: delete the file. */
  readonly bytes: Bytes;
  readonly mode: number | null;
  readonly how: "child" | "merged";
  /** What the checkout held there when planned: a writer in between is refused, not overwritten. */
  readonly before: Current;
}

/** A plan and the checkout's folders it was read through (the writes go through the same ones). */
export interface Plan {
  readonly files: readonly Planned[];
  readonly folders: CheckoutFolders;
}

/** A regular file of toolgate's own scratch folder: its bytes, null when absent, "other" for a link or folder. */
function readOwn(p: string): Bytes | "other" {
  try {
    return lstatSync(p).isFile() ? readFileSync(p) : "other";
  } catch {
    return null;
  }
}

const bytesOf = (c: Current): Bytes => (c === null || c === "other" ? null : c.bytes);
const same = (a: Bytes, b: Bytes) => (a === null || b === null ? a === b : a.equals(b));

type Sealed = ChangeRecord & { git_dir: string; change: string };

/**
 * The changed files as they were at the base and as the child left them, written under `<worktree>.apply` by git
 * from the change's folder.
 */
async function checkouts(p: ProcessRunner, rec: Sealed): Promise<Outcome<{ dir: string; base: string; neu: string }>> {
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

/**
 * The paths apply_change never writes, judged as file_write judges them (one predicate,
 * files/protected.ts: .git in any case and at any depth, the state folder, toolgate.json and
 * toolgate.lock in any folder, the config in use, the authored-tools folder), plus the worktree
 * root's records, anything outside the workspace (the repository's top may lie above it), and
 * anything in a folder git would take for a repository (gitDirs).
 */
function guardedPaths(rec: Sealed, top: string, scope: ApplyScope): { path: string; why: string }[] {
  const ws = realpathSync(scope.workspace);
  const out: { path: string; why: string }[] = [];
  const unplain = (p: string) => p.split("/").some((s) => s === "" || s === "." || s === "..");
  const repos = gitDirs(
    top,
    rec.files.map((f) => f.path).filter((p) => !unplain(p)),
  );
  for (const { path } of rec.files) {
    const abs = join(top, path);
    const repo = repos.find((d) => d === "." || isInside(d, path));
    if (unplain(path)) out.push({ path, why: "not a plain relative path" });
    else if (!isInside(ws, abs)) out.push({ path, why: "outside the workspace" });
    else if (repo !== undefined)
      out.push({
        path,
        why:
          `inside ${repo === "." ? "the checkout's top" : repo}, which holds HEAD beside config, objects/ or ` +
          `refs/ (in the checkout or with the change): git would take it for a repository and run what its ` +
          `config and hooks name, so apply_change never writes there, as it never writes .git`,
      });
    else {
      const refused = refuseProtected(
        ws,
        { ...(scope.stateDir ? { stateDir: scope.stateDir } : {}), controlFiles: scope.controlFiles },
        relative(ws, abs),
      );
      if (refused && !refused.ok) out.push({ path, why: refused.refusal.message });
    }
  }
  return out;
}

/**
 * The folders (relative to the checkout's top, "." for the top) holding one of `paths` that look
 * like a git directory once the change is in: a `HEAD` beside a `config`, `objects` or `refs`,
 * counting what the checkout holds there now and what the change brings, names in any case (as
 * .git is judged). A bare repository a child left in its tree (`x/HEAD`, `x/config` naming
 * core.fsmonitor, `x/hooks/`) would otherwise sit in the checkout, where `git -C x` runs what it names.
 */
function gitDirs(top: string, paths: readonly string[]): string[] {
  /** Per folder: each entry's lower-cased name, and whether one of that name is a file (not a folder). */
  const folders = new Map<string, Map<string, boolean>>();
  const note = (dir: string, name: string, file: boolean) => {
    const entries = folders.get(dir) ?? new Map<string, boolean>();
    entries.set(name.toLowerCase(), file || entries.get(name.toLowerCase()) === true);
    folders.set(dir, entries);
  };
  for (const path of paths) {
    const parts = path.split("/");
    parts.forEach((name, i) => {
      note(i === 0 ? "." : parts.slice(0, i).join("/"), name, i === parts.length - 1);
    });
  }
  const found: string[] = [];
  for (const [dir, entries] of folders) {
    try {
      for (const e of readdirSync(join(top, dir), { withFileTypes: true })) note(dir, e.name, !e.isDirectory());
    } catch {
      // Not in the checkout (yet): the change's own entries decide.
    }
    const file = (name: string) => entries.get(name) === true;
    if (file("head") && (file("config") || entries.has("objects") || entries.has("refs"))) found.push(dir);
  }
  return found;
}

/**
 * What apply_change's writes are scoped by: the workspace, the state folder and the control paths (absolute) it
 * never writes.
 */
export interface ApplyScope {
  readonly workspace: string;
  readonly stateDir?: string;
  readonly controlFiles: readonly string[];
}

/**
 * Plans every file, or refuses listing the files that conflict; writes nothing. The caller closes the plan's folders.
 */
export async function planApply(p: ProcessRunner, rec: Sealed, scope: ApplyScope): Promise<Outcome<Plan>> {
  const top = realpathSync(rec.top);
  const guarded = guardedPaths(rec, top, scope);
  if (guarded.length > 0) {
    const list = guarded.map((g) => g.path);
    return refuse(
      "change.protected",
      `the change touches files apply_change never writes, as file_write never does (.git or a folder git ` +
        `would take for a repository, toolgate's state folder and control files, or outside the workspace): ` +
        `${list.join(", ")}; nothing was written (discard it with {"change_id": "${rec.id}", "discard": true})`,
      { files: list, why: guarded.map((g) => `${g.path}: ${g.why}`) },
    );
  }
  const files = await checkouts(p, rec);
  if (!files.ok) return files;
  const opened = CheckoutFolders.open(top);
  if (!opened.ok) return opened;
  const folders = opened.value;
  const planned = await plan(p, rec, files.value, folders);
  removeTree(files.value.dir);
  if (!planned.ok) {
    folders.close();
    return planned;
  }
  return ok({ files: planned.value, folders });
}

async function plan(
  p: ProcessRunner,
  rec: Sealed,
  at: { dir: string; base: string; neu: string },
  folders: CheckoutFolders,
): Promise<Outcome<Planned[]>> {
  const planned: Planned[] = [];
  const conflicts: string[] = [];
  for (const [i, f] of rec.files.entries()) {
    const read = folders.read(f.path);
    if (!read.ok) return read;
    const before = read.value;
    const old = readOwn(join(at.base, f.path));
    const neu = readOwn(join(at.neu, f.path));
    if (before === "other" || old === "other" || neu === "other") {
      conflicts.push(f.path);
      continue;
    }
    const cur = bytesOf(before);
    const mode = neu === null ? null : lstatSync(join(at.neu, f.path)).mode & 0o777;
    if (same(cur, neu)) continue;
    if (same(cur, old)) {
      planned.push({ path: f.path, bytes: neu, mode, how: "child", before });
      continue;
    }
    if (cur === null || old === null || neu === null) {
      conflicts.push(f.path);
      continue;
    }
    // Both sides changed the file: git's own three-way merge of the bytes, on a copy.
    const tmp = join(at.dir, `merge-${i}`);
    writeFileSync(tmp, cur);
    const m = await sealedGit(p, { gitDir: rec.git_dir, workTree: null }, [
      "merge-file",
      "-q",
      tmp,
      join(at.base, f.path),
      join(at.neu, f.path),
    ]);
    if (!m.ok) return m;
    if (m.value.code !== 0) conflicts.push(f.path);
    else planned.push({ path: f.path, bytes: readFileSync(tmp), mode, how: "merged", before });
  }
  if (conflicts.length > 0) {
    return refuse(
      "change.conflict",
      `the change conflicts with the checkout in ${conflicts.length} ` +
        `file${conflicts.length === 1 ? "" : "s"}: ${conflicts.join(", ")}; nothing was written (discard it with ` +
        `{"change_id": "${rec.id}", "discard": true}, or resolve by hand and discard)`,
      { files: conflicts },
    );
  }
  return ok(planned);
}

/**
 * Opens (making when missing) every folder the plan writes into, before anything is written: a
 * folder swapped for a link refuses the whole apply with nothing written.
 */
export function prepareFolders(plan: Plan): Outcome<null> {
  for (const f of plan.files) {
    if (f.bytes === null) continue;
    const dir = f.path.includes("/") ? f.path.slice(0, f.path.lastIndexOf("/")) : "";
    const r = plan.folders.folder(dir, true);
    if (!r.ok)
      return refuse(
        "path.changed",
        `"${f.path}": a folder on its way is a link or not a folder now (swapped in after the plan, ` +
          `${r.code}); nothing was written`,
      );
  }
  return ok(null);
}

/** Writes the plan (after prepareFolders): the paths written and, if one failed, it and why. */
export function writePlan(plan: Plan): { written: string[]; failed?: { path: string; code: string; message: string } } {
  const written: string[] = [];
  for (const f of plan.files) {
    const r = f.bytes === null ? plan.folders.remove(f.path) : plan.folders.write(f.path, f.bytes, f.mode, f.before);
    if (!r.ok) return { written, failed: { path: f.path, code: r.refusal.code, message: r.refusal.message } };
    written.push(f.path);
  }
  return { written };
}
