// A write child's change: `<root>/<id>.git`, the change's own git folder (sealed-git.ts) holding
// the base commit (what the child started from) and the change commit (what it left), and
// `<root>/<id>.json` (running → ready → applied | discarded). The child's worktree `<root>/<id>`
// lives only while the child runs. What a record no longer keeps (a worktree, a change folder, an
// apply's scratch folder) is removed by the sweep at boot. File-system work only: no git runs here.
import { existsSync, readdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { removeTree } from "../gates/copy.ts";
import type { FileStat } from "./sealed-git.ts";

export interface ChangeRecord {
  readonly id: string;
  /** running: the child still works (pid is the parent process that waits for it). */
  readonly status: "running" | "ready" | "applied" | "discarded";
  readonly pid?: number;
  /** The repository's top folder the child's worktree was made from (where apply_change writes). */
  readonly top: string;
  /**
   * The worktree (a copy of top at HEAD plus the uncommitted changes, then the child's edits); gone once the child
   * ended.
   */
  readonly worktree: string;
  /**
   * The change's own git folder, made before the child ran. Absent: a change kept by an earlier toolgate (never
   * applied).
   */
  readonly git_dir?: string;
  /** The commit in git_dir holding what the child started from. */
  readonly base: string;
  /** The commit in git_dir holding what the child left (ready changes). */
  readonly change?: string;
  /** git's registration folder of the worktree, read before the child ran (it can rewrite .git). */
  readonly admin: string | null;
  readonly files: readonly FileStat[];
  readonly created_ms: number;
}

export const CHANGE_ID = /^[0-9a-f]{16}$/;
const recordPath = (root: string, id: string) => join(root, `${id}.json`);
/**
 * The folders a change may have beside its record: the worktree, its git folder, an apply's scratch, the copy's
 * patch.
 */
const SUFFIXES = ["", ".git", ".apply", ".base", ".patch"];

export function readChange(root: string, id: string): ChangeRecord | null {
  if (!CHANGE_ID.test(id)) return null;
  try {
    return JSON.parse(readFileSync(recordPath(root, id), "utf8")) as ChangeRecord;
  } catch {
    return null;
  }
}

/** Written whole and renamed into place: a crash leaves the old record or the new, never half. */
export function writeChange(root: string, rec: ChangeRecord): void {
  const tmp = `${recordPath(root, rec.id)}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(rec, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, recordPath(root, rec.id));
}

/** Removes a change's worktree and its registration (only a folder directly under .git/worktrees). */
export function removeWorktree(rec: Pick<ChangeRecord, "worktree" | "admin">): boolean {
  const gone = removeTree(rec.worktree) && removeTree(`${rec.worktree}.base`) && removeTree(`${rec.worktree}.patch`);
  if (rec.admin !== null && /\/worktrees$/.test(dirname(resolve(rec.admin)))) return removeTree(rec.admin) && gone;
  return gone;
}

/**
 * Removes everything a change keeps but its record: the worktree and registration, the git folder, an apply's
 * scratch.
 */
export function removeChange(rec: Pick<ChangeRecord, "worktree" | "admin">): boolean {
  const a = removeWorktree(rec);
  return removeTree(`${rec.worktree}.git`) && removeTree(`${rec.worktree}.apply`) && a;
}

/**
 * The sweep at boot: what the records no longer keep is removed — everything of a change whose
 * record is missing or applied or discarded, the worktree of one no longer running, and all of a
 * running one whose process is gone. Returns the ids of the changes something was removed of. No git runs: a
 * registration left
 * behind is pruned by git itself.
 */
export function sweepWorktrees(root: string): string[] {
  if (!existsSync(root)) return [];
  const removed: string[] = [];
  for (const e of readdirSync(root, { withFileTypes: true })) {
    const suffix = SUFFIXES.find((s) => s !== "" && e.name.endsWith(s)) ?? "";
    const id = e.name.slice(0, e.name.length - suffix.length);
    if (!e.isDirectory() || !CHANGE_ID.test(id)) continue;
    const rec = readChange(root, id);
    const running = rec?.status === "running" && alive(rec.pid);
    if (running || (rec?.status === "ready" && (suffix === ".git" || suffix === ".apply"))) continue;
    const path = join(root, e.name);
    const ok =
      suffix === "" ? removeWorktree({ worktree: path, admin: rec?.admin ?? adminOf(path) }) : removeTree(path);
    if (ok && !removed.includes(id)) removed.push(id);
  }
  return removed;
}

const alive = (pid: number | undefined): boolean => {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
};

/**
 * A worktree's registration named by its .git file, when the record that kept it is gone: only a
 * registration that names this very worktree back (its `gitdir` file, which the child could not
 * write), so a rewritten .git cannot point the sweep at another folder.
 */
function adminOf(wt: string): string | null {
  try {
    const named = /^gitdir: (.+)$/m.exec(readFileSync(join(wt, ".git"), "utf8"))?.[1]?.trim();
    if (!named) return null;
    const admin = resolve(wt, named);
    const back = readFileSync(join(admin, "gitdir"), "utf8").trim();
    return basename(back) === ".git" && realpathSync(dirname(back)) === realpathSync(wt) ? admin : null;
  } catch {
    return null;
  }
}
