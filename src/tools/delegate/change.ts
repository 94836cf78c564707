// A write child's change: its worktree `<root>/<id>`, the base commit made in it before the child
// ran, and `<root>/<id>.json` (running → ready → applied | discarded). A worktree whose record is
// gone, no longer ready, or running for a process that is gone is removed by the sweep at boot. File-system work only, but for git.
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { ProcessRunner } from "../../catalog/declare.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";
import { git, removeTree } from "../gates/copy.ts";

export interface FileStat {
  readonly path: string;
  /** null for a binary file (git's numstat says "-"). */
  readonly added: number | null;
  readonly deleted: number | null;
}

export interface ChangeRecord {
  readonly id: string;
  /** running: the child still works in it (pid is the parent process that waits for it). */
  readonly status: "running" | "ready" | "applied" | "discarded";
  readonly pid?: number;
  /** The repository's top folder the child's worktree was made from (where apply_change writes). */
  readonly top: string;
  /** The worktree (a copy of top at HEAD plus the uncommitted changes, then the child's edits). */
  readonly worktree: string;
  /** The commit in the worktree holding what the child started from. */
  readonly base: string;
  /** git's registration folder of the worktree, read before the child ran (it can rewrite .git). */
  readonly admin: string | null;
  readonly files: readonly FileStat[];
  readonly created_ms: number;
}

export const CHANGE_ID = /^[0-9a-f]{16}$/;
const recordPath = (root: string, id: string) => join(root, `${id}.json`);

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

const NO_HOOKS = ["-c", "user.name=toolgate", "-c", "user.email=toolgate@localhost", "-c", "commit.gpgsign=false"];

/** Commits what the worktree holds as the base the child's change is measured from. */
export async function commitBase(p: ProcessRunner, wt: string): Promise<Outcome<string>> {
  const add = await git(p, wt, ["add", "-A"]);
  if (!add.ok) return add;
  const c = await git(p, wt, [...NO_HOOKS, "commit", "-q", "--no-verify", "--allow-empty", "-m", "toolgate: the write child's base"]);
  if (!c.ok) return c;
  if (c.value.code !== 0) return refuse("task.worktree", `committing the write child's base failed: ${c.value.err}`);
  const head = await git(p, wt, ["rev-parse", "HEAD"]);
  if (!head.ok) return head;
  return ok(head.value.out.trim());
}

/** What the child changed against the base: one numstat row per file (renames as delete + add). */
export async function diffStat(p: ProcessRunner, wt: string, base: string): Promise<Outcome<FileStat[]>> {
  const add = await git(p, wt, ["add", "-A"]);
  if (!add.ok) return add;
  const d = await git(p, wt, ["diff", "--cached", "--numstat", "--no-renames", "-z", base, "--"]);
  if (!d.ok) return d;
  if (d.value.code !== 0) return refuse("task.worktree", `git diff in the write child's worktree failed: ${d.value.err}`);
  const out: FileStat[] = [];
  for (const row of d.value.out.split("\0")) {
    const m = /^(\d+|-)\t(\d+|-)\t(.+)$/s.exec(row);
    if (m) out.push({ path: m[3]!, added: m[1] === "-" ? null : Number(m[1]), deleted: m[2] === "-" ? null : Number(m[2]) });
  }
  return ok(out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)));
}

/** Removes a change's worktree and its registration (only a folder directly under .git/worktrees). */
export function removeWorktree(rec: Pick<ChangeRecord, "worktree" | "admin">): boolean {
  const gone = removeTree(rec.worktree) && removeTree(`${rec.worktree}.base`) && removeTree(`${rec.worktree}.patch`);
  if (rec.admin !== null && /\/worktrees$/.test(dirname(resolve(rec.admin)))) return removeTree(rec.admin) && gone;
  return gone;
}

/**
 * The sweep at boot: every folder under the worktree root whose change record is missing or no
 * longer ready (a crash between applying and removing, a record deleted by hand) is removed.
 * Returns the ids removed. No git runs: a registration left behind is pruned by git itself.
 */
export function sweepWorktrees(root: string): string[] {
  if (!existsSync(root)) return [];
  const removed: string[] = [];
  for (const e of readdirSync(root, { withFileTypes: true })) {
    const id = e.name.replace(/\.base$/, "");
    if (!e.isDirectory() || !CHANGE_ID.test(id)) continue;
    const rec = readChange(root, id);
    if (rec?.status === "ready" || (rec?.status === "running" && alive(rec.pid))) continue;
    const admin = rec?.admin ?? adminOf(join(root, id));
    if (removeWorktree({ worktree: join(root, id), admin })) removed.push(e.name);
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

/** A worktree's registration named by its .git file, when the record that kept it is gone. */
function adminOf(wt: string): string | null {
  try {
    const named = /^gitdir: (.+)$/m.exec(readFileSync(join(wt, ".git"), "utf8"))?.[1]?.trim();
    return named ? resolve(wt, named) : null;
  } catch {
    return null;
  }
}
