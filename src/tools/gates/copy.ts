// dev_check's disposable copy of the working tree: a git worktree at HEAD in the state folder,
// with the uncommitted changes applied (`git diff --binary HEAD`) and the untracked, not ignored
// files copied. Git runs through the launcher; removal is plain file-system work, so it still
// happens after a cancel (when the launcher starts nothing new).
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { copyUntracked } from "./untracked.ts";
import type { ProcessRunner } from "../../catalog/declare.ts";
import type { Code } from "../../result/codes.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";
import { isInside } from "../files/workspace.ts";

/**
 * Repository hooks and an fsmonitor would run programs outside any sandbox while the copy is made;
 * the copy needs neither. Filters (smudge/clean) stay: the copy should hold what a checkout holds.
 */
const GIT = ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"];
const GIT_DEADLINE_MS = 120_000;

export interface Copy {
  /** The repository's top folder (real path) the copy was made from. */
  readonly top: string;
  /** The repository's common git folder (absolute): its objects are what the copy was checked out from. */
  readonly common: string;
  /** The commit the copy was checked out at (HEAD). */
  readonly head: string;
  /** The copy's own top folder (the only folder a gate may write). */
  readonly root: string;
  /** The copy's folder matching the gates directory: where gates run. */
  readonly cwd: string;
  /** Removes the copy and its worktree registration; false when something was left behind. */
  remove(): boolean;
}

export interface GitRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

export const git = (p: ProcessRunner, cwd: string, args: readonly string[]): Promise<Outcome<GitRun>> =>
  runGit(p, [...GIT, ...args], cwd);

/** One git command line (argv[0] is "git"), outside any sandbox; `code` names a run that did not finish. */
export async function runGit(
  p: ProcessRunner,
  argv: readonly string[],
  cwd: string,
  extra: { values?: Record<string, string>; stdin?: string; code?: Code } = {},
): Promise<Outcome<GitRun>> {
  const r = await p.run({
    argv,
    cwd,
    deadlineMs: GIT_DEADLINE_MS,
    sandboxed: false,
    ...(extra.values ? { values: extra.values } : {}),
    ...(extra.stdin === undefined ? {} : { stdin: extra.stdin }),
  });
  if (!r.ok) return r;
  const e = r.value;
  const sub = argv.find((a, i) => i > 0 && !a.startsWith("-") && argv[i - 1] !== "-c") ?? "";
  if (e.ended !== "exited")
    return refuse(extra.code ?? "dev_check.copy_failed", `git ${sub} did not finish (${e.ended})`);
  // The tail is enough for most answers; a long one is read whole from its artifact.
  let out = e.stdout.tail;
  if (e.stdout.truncated && e.artifacts.stdout !== null) out = readFileSync(e.artifacts.stdout, "utf8");
  return ok({ code: e.code, out, err: e.stderr.tail.trim() });
}

const failed = (what: string, r: GitRun) =>
  refuse("dev_check.copy_failed", `${what} failed (git exit code ${r.code}): ${r.err || "no message"}`);

/**
 * Makes the copy for one gate run under `<stateDir>/worktrees/<id>` (a write child's: under `base`). `dir` is the
 * gates directory
 * (a real, absolute path inside a git repository with at least one commit). The repository must not
 * be one nested inside `workspace` (a sandboxed command can make a `.git` anywhere below its root:
 * git would run what that folder's config names, outside the sandbox); once found, its git folder
 * is named on every git command line, never found again from a tree.
 */
export async function makeCopy(
  p: ProcessRunner,
  dir: string,
  stateDir: string,
  id: string,
  base = join(stateDir, "worktrees"),
  workspace = dir,
): Promise<Outcome<Copy>> {
  const where = await git(p, dir, [
    "rev-parse",
    "--path-format=absolute",
    "--show-toplevel",
    "--git-common-dir",
    "--absolute-git-dir",
  ]);
  if (!where.ok) return where;
  if (where.value.code !== 0) {
    return refuse(
      "dev_check.not_a_repository",
      `the gates directory is not inside a git repository (${where.value.err}); dev_check copies the ` +
        `working tree with git`,
    );
  }
  const [top, common, gitDir] = where.value.out.trim().split("\n");
  if (!top || !common || !gitDir)
    return refuse("dev_check.copy_failed", "git rev-parse did not name the repository's top folder");
  const ws = realOr(workspace);
  if (isInside(ws, top) && top !== ws) {
    const rel = relative(ws, top);
    return refuse(
      "dev_check.nested_repository",
      `the gates directory lies in a git repository nested inside the workspace (${rel}/.git): a sandboxed ` +
        `command can make one there, and git would run what its config names outside the sandbox, so dev_check ` +
        `copies only the workspace's own repository; remove ${rel}/.git (or set gates.directory to a folder of ` +
        `the workspace's repository)`,
      { repository: rel },
    );
  }
  const pinned = [`--git-dir=${gitDir}`, `--work-tree=${top}`];
  const head = await git(p, top, [...pinned, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  if (!head.ok) return head;
  if (head.value.code !== 0)
    return refuse(
      "dev_check.no_commit",
      "the repository has no commit yet; commit once so a worktree can be made at HEAD",
    );

  const root = join(base, id);
  const patch = join(base, `${id}.patch`);
  mkdirSync(base, { recursive: true, mode: 0o700 });
  // The registration folder is read once, right after the copy is made and before any gate
  // runs: a gate can rewrite the copy's .git file, so it is never read again at removal.
  let admin: string | null = null;
  const copy: Copy = {
    top,
    common,
    head: head.value.out.trim(),
    root,
    cwd: join(root, relative(top, dir)),
    remove: () => removeCopy(root, patch, join(common, "worktrees"), admin),
  };
  const made = await fill(p, top, pinned, root, patch, stateDir);
  admin = registrationOf(root);
  if (!made.ok) {
    copy.remove();
    return made;
  }
  return ok(copy);
}

async function fill(
  p: ProcessRunner,
  top: string,
  pinned: readonly string[],
  root: string,
  patch: string,
  stateDir: string,
): Promise<Outcome<null>> {
  const diff = await git(p, top, [
    ...pinned,
    "diff",
    "--binary",
    "--no-ext-diff",
    "--no-textconv",
    "--no-color",
    "--ignore-submodules",
    `--output=${patch}`,
    "HEAD",
    "--",
  ]);
  if (!diff.ok) return diff;
  if (diff.value.code !== 0) return failed("git diff HEAD", diff.value);
  const add = await git(p, top, [...pinned, "worktree", "add", "--detach", "--quiet", root, "HEAD"]);
  if (!add.ok) return add;
  if (add.value.code !== 0) return failed("git worktree add", add.value);
  if (statSync(patch).size > 0) {
    const apply = await git(p, root, ["apply", "--binary", "--whitespace=nowarn", patch]);
    if (!apply.ok) return apply;
    if (apply.value.code !== 0) return failed("applying the uncommitted changes", apply.value);
  }
  const untracked = await git(p, top, [...pinned, "ls-files", "-z", "--others", "--exclude-standard"]);
  if (!untracked.ok) return untracked;
  if (untracked.value.code !== 0) return failed("git ls-files --others", untracked.value);
  // The state folder (the copy itself, the journal) is never part of the copy.
  const state = relative(top, stateDir);
  const skipState = state !== "" && !state.startsWith("..");
  const names = untracked.value.out.split("\0").filter((rel) => rel !== "" && !(skipState && isInside(state, rel)));
  copyUntracked(top, root, names);
  return ok(null);
}

const realOr = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/** The worktree's registration in the main repository, named by the copy's .git file (null if none). */
export function registrationOf(root: string): string | null {
  try {
    const named = /^gitdir: (.+)$/m.exec(readFileSync(join(root, ".git"), "utf8"))?.[1]?.trim();
    return named ? resolve(root, named) : null;
  } catch {
    return null; // not made: nothing registered under this copy
  }
}

function removeCopy(root: string, patch: string, registrations: string, admin: string | null): boolean {
  const gone = removeTree(root) && removeTree(patch);
  // Only a folder directly under .git/worktrees, resolved (no `..` can climb out of it).
  if (admin !== null && dirname(admin) === resolve(registrations)) return removeTree(admin) && gone;
  return gone;
}

/** rm -rf, making folders writable first when a gate left read-only ones behind. */
export function removeTree(path: string): boolean {
  try {
    rmSync(path, { recursive: true, force: true });
    return true;
  } catch {
    makeWritable(path);
  }
  try {
    rmSync(path, { recursive: true, force: true });
    return true;
  } catch {
    return false;
  }
}

function makeWritable(path: string): void {
  try {
    if (!lstatSync(path).isDirectory()) return;
    chmodSync(path, 0o700);
    for (const name of readdirSync(path)) makeWritable(join(path, name));
  } catch {
    // Best effort: the second rm reports what is left.
  }
}
