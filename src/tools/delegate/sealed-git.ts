// A write child's change, kept in a git folder of its own (`<worktree_root>/<id>.git`) that toolgate
// makes before the child runs and the child can never write (sockets and git are
// seams). Every git command that reads the child's tree names that folder and the tree on its
// command line (never found from the tree, whose .git the child may rewrite), with the system and
// global config off (the launcher gives git no HOME), hooks and fsmonitor off, and an
// info/attributes that overrides the tree's .gitattributes: no filter, diff or merge driver, no
// end-of-line or encoding conversion, so git stores the child's bytes as they are and starts no
// program named by anything in the tree. A git repository inside the child's tree (git would run
// `git status` in it) is refused before git looks at the tree.
import { closeSync, mkdirSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ProcessRunner } from "../../catalog/declare.ts";
import { CHANGED, inDir, O_DIR, openChecked, openIn } from "../../fs/opened.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";
import { runGit, type GitRun } from "../gates/copy.ts";

/** What the tree's own .gitattributes may not turn on: highest precedence, for every path. */
export const NEUTRAL_ATTRIBUTES = "* -text !eol !crlf -ident !filter !diff !merge !working-tree-encoding\n";

const IDENTITY = ["-c", "user.name=toolgate", "-c", "user.email=toolgate@localhost"];
const SEALED = [
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
  "-c",
  "core.attributesFile=/dev/null",
  "-c",
  "core.autocrlf=false",
  "-c",
  "core.safecrlf=false",
];
const NO_SYSTEM = { GIT_CONFIG_NOSYSTEM: "1", GIT_ATTR_NOSYSTEM: "1" };

export interface Sealed {
  /** The change's own git folder (made by toolgate, outside every tree a child writes). */
  readonly gitDir: string;
  /** The tree git reads, fixed before the child ran; null for commands on the objects alone. */
  readonly workTree: string | null;
}

/** git on the sealed folder: never a path found in a tree, no config but the folder's own and these flags. */
export function sealedGit(
  p: ProcessRunner,
  s: Sealed,
  args: readonly string[],
  extra: { index?: string; stdin?: string; cwd?: string } = {},
): Promise<Outcome<GitRun>> {
  const argv = [
    "git",
    `--git-dir=${s.gitDir}`,
    ...(s.workTree === null ? [] : [`--work-tree=${s.workTree}`]),
    "--literal-pathspecs",
    ...SEALED,
    ...args,
  ];
  const values = extra.index === undefined ? NO_SYSTEM : { ...NO_SYSTEM, GIT_INDEX_FILE: extra.index };
  return runGit(p, argv, extra.cwd ?? s.gitDir, {
    values,
    code: "change.failed",
    ...(extra.stdin === undefined ? {} : { stdin: extra.stdin }),
  });
}

const failed = (what: string, r: GitRun) =>
  refuse("change.failed", `${what} failed (git exit code ${r.code}): ${r.err || "no message"}`);

/**
 * Makes the change's git folder: bare, no template (no hook files), the neutral attributes, and the
 * repository's objects as alternates (what the worktree was checked out from is not copied again).
 */
export async function makeChangeRepo(p: ProcessRunner, gitDir: string, commonDir: string): Promise<Outcome<null>> {
  mkdirSync(gitDir, { mode: 0o700 });
  const init = await sealedGit(p, { gitDir, workTree: null }, ["init", "-q", "--bare", "--template=", gitDir]);
  if (!init.ok) return init;
  if (init.value.code !== 0) return failed("git init of the change's folder", init.value);
  mkdirSync(join(gitDir, "info"), { recursive: true, mode: 0o700 });
  writeFileSync(join(gitDir, "info", "attributes"), NEUTRAL_ATTRIBUTES, { mode: 0o600 });
  mkdirSync(join(gitDir, "objects", "info"), { recursive: true, mode: 0o700 });
  writeFileSync(join(gitDir, "objects", "info", "alternates"), `${join(commonDir, "objects")}\n`, { mode: 0o600 });
  return ok(null);
}

/**
 * Commits the whole tree as it is now and returns the commit: after `parent`, or, for the base,
 * with the index seeded from `seed` (the copy's HEAD), so a tracked file a .gitignore matches is
 * tracked here too.
 */
export async function snapshot(
  p: ProcessRunner,
  s: Sealed & { readonly workTree: string },
  parent: string | null,
  message: string,
  seed?: string,
): Promise<Outcome<string>> {
  const nested = nestedRepositories(s.workTree);
  if (nested.length > 0) {
    return refuse(
      "change.nested_repository",
      `the worktree holds a git repository of its own ` +
        `(${nested.slice(0, 5).join(", ")}${nested.length > 5 ? ", ..." : ""}); git would run commands in it, so ` +
        `the change is not read`,
      { paths: nested.slice(0, 20) },
    );
  }
  if (seed !== undefined) {
    const read = await sealedGit(p, { gitDir: s.gitDir, workTree: null }, ["read-tree", seed]);
    if (!read.ok) return read;
    if (read.value.code !== 0) return failed("git read-tree", read.value);
  }
  const add = await sealedGit(p, s, ["add", "-A"]);
  if (!add.ok) return add;
  if (add.value.code !== 0) return failed("git add", add.value);
  const tree = await sealedGit(p, s, ["write-tree"]);
  if (!tree.ok) return tree;
  if (tree.value.code !== 0) return failed("git write-tree", tree.value);
  const commit = await sealedGit(p, { gitDir: s.gitDir, workTree: null }, [
    ...IDENTITY,
    "commit-tree",
    ...(parent ? ["-p", parent] : []),
    "-m",
    message,
    tree.value.out.trim(),
  ]);
  if (!commit.ok) return commit;
  if (commit.value.code !== 0) return failed("git commit-tree", commit.value);
  return ok(commit.value.out.trim());
}

/** A folder moved while it was walked (where no /proc places a descriptor, fs/opened.ts inDir). */
const moved = (e: unknown) => (e as { code?: string }).code === CHANGED;

/**
 * Every `.git` (in any case) below the tree's top, as relative paths: a folder holding one is a
 * repository git would enter. The top's own `.git` is the worktree's and is never read (the git
 * folder is named on the command line). Walked by descriptor, never through a link.
 */
export function nestedRepositories(top: string): string[] {
  const found: string[] = [];
  const walk = (fd: number, rel: string) => {
    let names: import("node:fs").Dirent[];
    try {
      names = readdirSync(inDir(fd, "."), { withFileTypes: true });
    } catch (e) {
      if (moved(e)) throw e; // a folder moved while it was walked (no /proc): unread is not "none found"
      return;
    }
    for (const e of names) {
      const path = rel === "" ? e.name : `${rel}/${e.name}`;
      if (e.name.toLowerCase() === ".git") {
        if (rel !== "" || e.name !== ".git") found.push(path);
        continue;
      }
      if (!e.isDirectory()) continue;
      let sub: number;
      try {
        sub = openIn(fd, e.name, O_DIR);
      } catch (e) {
        if (moved(e)) throw e;
        continue; // swapped for a link or gone: git cannot enter it either
      }
      try {
        walk(sub, path);
      } finally {
        closeSync(sub);
      }
    }
  };
  // Held at its real path: where no /proc places a descriptor, names inside are reached from there.
  const opened = openChecked(realpathSync(top), O_DIR);
  if (!opened.ok)
    throw Object.assign(new Error(`the worktree ${top} cannot be opened (${opened.code})`), { code: opened.code });
  const fd = opened.fd;
  try {
    walk(fd, "");
  } finally {
    closeSync(fd);
  }
  return found.sort();
}

export interface FileStat {
  readonly path: string;
  /** null for a binary file (git's numstat says "-"). */
  readonly added: number | null;
  readonly deleted: number | null;
}

/** What changed between two commits of the change's folder: one numstat row per file (renames as delete + add). */
export async function diffStat(
  p: ProcessRunner,
  gitDir: string,
  from: string,
  to: string,
): Promise<Outcome<FileStat[]>> {
  const d = await sealedGit(p, { gitDir, workTree: null }, [
    "diff-tree",
    "-r",
    "--numstat",
    "--no-renames",
    "--no-ext-diff",
    "--no-textconv",
    "-z",
    from,
    to,
    "--",
  ]);
  if (!d.ok) return d;
  if (d.value.code !== 0) return failed("git diff-tree", d.value);
  const out: FileStat[] = [];
  for (const row of d.value.out.split("\0")) {
    const m = /^(\d+|-)\t(\d+|-)\t(.+)$/s.exec(row);
    if (m)
      out.push({ path: m[3]!, added: m[1] === "-" ? null : Number(m[1]), deleted: m[2] === "-" ? null : Number(m[2]) });
  }
  return ok(out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)));
}

/**
 * Writes `paths` as they are in `commit` under `dir` (a fresh folder of toolgate's); paths absent there are left out.
 */
export async function checkoutFiles(
  p: ProcessRunner,
  gitDir: string,
  commit: string,
  paths: readonly string[],
  dir: string,
): Promise<Outcome<null>> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ls = await sealedGit(p, { gitDir, workTree: null }, [
    "ls-tree",
    "-r",
    "-z",
    "--name-only",
    "--full-tree",
    commit,
  ]);
  if (!ls.ok) return ls;
  if (ls.value.code !== 0) return failed("git ls-tree", ls.value);
  const inCommit = new Set(ls.value.out.split("\0"));
  const wanted = paths.filter((x) => inCommit.has(x));
  if (wanted.length === 0) return ok(null);
  const co = await sealedGit(
    p,
    { gitDir, workTree: dir },
    ["checkout", "-q", commit, "--pathspec-from-file=-", "--pathspec-file-nul"],
    { index: `${dir}.index`, stdin: wanted.join("\0"), cwd: dir },
  );
  if (!co.ok) return co;
  if (co.value.code !== 0) return failed("git checkout of the change's files", co.value);
  return ok(null);
}
