// task: one bounded child agent (delegation.command) with a narrowed toolgate as its only tools.
// scout: `serve --profile scout --child` on the workspace; write: `serve --profile writer --child`
// on a fresh worktree (HEAD plus the uncommitted changes) whose diff apply_change may apply later.
import { randomHex } from "../../result/sha256.ts";
import { rmSync, writeFileSync } from "node:fs";
import { ensureStateFolder } from "../../fs/state-folder.ts";
import { join, relative, resolve } from "node:path";
import { defineTool, type ToolContext } from "../../catalog/declare.ts";
import type { ConfigData } from "../../config/schema.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";
import { git, makeCopy, registrationOf, removeTree } from "../gates/copy.ts";
import { removeChange, removeWorktree, writeChange } from "./change.ts";
import { diffStat, makeChangeRepo, snapshot, type FileStat } from "./sealed-git.ts";
import { readEnvelope, type TaskStatus } from "./envelope.ts";
import { expandTemplate } from "./template.ts";
import { isInside } from "../files/workspace.ts";
import description from "./task.txt" with { type: "text" };

export const MAX_OBJECTIVE = 8000;
/** What approving a task call approves for its child, and nothing else: the child profile's tools. */
export const SCOUT_APPROVES = ["file_read", "file_find", "file_search", "skill_list", "skill_load"];
export const WRITER_APPROVES = ["file_read", "file_edit", "file_write"];

export interface DelegationConfig {
  readonly command?: readonly string[];
  readonly worktree_root?: string;
  readonly timeout_secs: number;
  readonly max_output_chars: number;
  readonly env?: readonly string[];
}

export const delegationOf = (ctx: {
  config?: ConfigData;
  workspace: string;
}): DelegationConfig & { root: string | null } => {
  const d = ctx.config?.delegation ?? {};
  return {
    timeout_secs: 600,
    max_output_chars: 12_000,
    ...d,
    root: d.worktree_root === undefined ? null : resolve(ctx.workspace, d.worktree_root),
  };
};

export default defineTool({
  name: "task",
  description: description.trimEnd(),
  input: (type) => type({ "+": "reject", objective: "string", kind: "'scout' | 'write'" }),
  // A child is held by its sandbox, its worktree (read by git sealed) and its
  // narrowed catalog; the checkout's one writer is apply_change, which a person approves.
  effect: "read",
  approval: "never",
  ownDeadline: true,
  needs: () => ({ ok: true, value: [] }),
  handler: (args, ctx) => runTask(args.objective, args.kind, ctx),
});

async function runTask(objective: string, kind: "scout" | "write", ctx: ToolContext): Promise<Outcome<unknown>> {
  if (objective.trim() === "")
    return refuse("task.objective", "the objective is empty: say what the child should find out or change");
  if (objective.length > MAX_OBJECTIVE)
    return refuse(
      "task.objective",
      `the objective is ${objective.length} characters, more than ${MAX_OBJECTIVE}: delegate a narrower job`,
      { length: objective.length, max: MAX_OBJECTIVE },
    );
  const conf = delegationOf(ctx);
  const del = ctx.delegation;
  if (conf.command === undefined || del === undefined)
    return refuse("task.unconfigured", "delegation.command is not set in a trusted config");
  if (kind === "write" && conf.root === null)
    return refuse(
      "task.unconfigured",
      "a write child needs delegation.worktree_root (where its worktree lives until apply_change)",
    );
  const id = randomHex(8);
  const childState = join(ctx.stateDir, "children", id);
  let wt: Worktree | null = null;
  if (kind === "write") {
    const made = await makeWorktree(ctx, conf.root!, id);
    if (!made.ok) return made;
    wt = made.value;
  }
  // The child's state folder is a state folder like any other: made and marked by toolgate.
  ensureStateFolder(childState);
  const configCopy = join(childState, "config.json");
  writeFileSync(configCopy, JSON.stringify(childConfig(del.configData, ctx.processes.sandboxMode)), {
    mode: 0o600,
    flag: "wx",
  });
  const serverWs = wt?.root ?? ctx.workspace;
  const grants = [
    ...(wt ? [`--allow-read=${wt.root}`, `--allow-write=${wt.root}`] : readFlags(del.readGrant, ctx.workspace)),
    ...denyFlags(del.denies, ctx.workspace, wt?.root),
  ];
  const server = [
    ...del.self,
    "serve",
    "--profile",
    wt ? "writer" : "scout",
    "--child",
    "--quiet",
    "--config",
    configCopy,
    "--workspace",
    serverWs,
    "--state",
    childState,
    ...grants,
    "--approve",
    (wt ? WRITER_APPROVES : SCOUT_APPROVES).join(","),
  ];
  const run = await ctx.processes.run({
    argv: expandTemplate(conf.command, objective, server),
    cwd: serverWs,
    deadlineMs: Math.round(conf.timeout_secs * 1000),
    sandboxed: true,
    writable: [childState, ...(wt ? [wt.root] : [])],
    // The child's variables are the call's secrets: masked in its output as it is drained too.
    ...(conf.env ? { secretEnv: conf.env } : {}),
  });
  // The child's calls join this journal under this call, whatever became of the child (its rows
  // redacted of delegation.env's values: the child's own server knows no secret of the parent's).
  try {
    del.adopt(childState, del.callId());
  } finally {
    removeTree(childState);
  }
  if (!run.ok) {
    if (wt) await dropChange(ctx, conf.root!, id, wt);
    return run;
  }
  const e = run.value;
  const status: TaskStatus =
    e.ended === "timeout" ? "timeout" : e.ended === "exited" && e.code === 0 ? "done" : "failed";
  const exit = e.ended === "exited" ? `exit code ${e.code}` : e.ended;
  // A child that did not finish says why on stderr: its end goes with the envelope (within the same bound).
  const why = status === "done" ? {} : { stderr: e.stderr.tail.slice(-Math.min(2000, conf.max_output_chars)) };
  const envelope = {
    kind,
    ...readEnvelope(e.stdout.tail, exit, status, conf.max_output_chars),
    ...(status === "timeout" ? { timeout_secs: conf.timeout_secs } : {}),
    ...why,
  };
  if (!wt) return ok(envelope);
  return ok({ ...envelope, ...(await keepChange(ctx, id, wt, status)) });
}

interface Worktree {
  readonly root: string;
  readonly top: string;
  readonly admin: string | null;
  /** The change's own git folder and the base commit in it, both made before the child runs. */
  readonly gitDir: string;
  readonly base: string;
}

/**
 * The write child's worktree (HEAD plus the uncommitted changes) and the change's git folder with
 * the worktree committed as its base, recorded as running before the child starts: a boot elsewhere
 * meanwhile sweeps it only once this process is gone.
 */
async function makeWorktree(ctx: ToolContext, root: string, id: string): Promise<Outcome<Worktree>> {
  const copy = await makeCopy(ctx.processes, ctx.workspace, ctx.stateDir, id, root);
  if (!copy.ok) return refuse("task.worktree", `the write child's worktree could not be made: ${copy.refusal.message}`);
  const admin = registrationOf(copy.value.root);
  removeTree(`${copy.value.root}.patch`);
  const gitDir = `${copy.value.root}.git`;
  const sealed = await makeChangeRepo(ctx.processes, gitDir, copy.value.common);
  const base = sealed.ok
    ? await snapshot(
        ctx.processes,
        { gitDir, workTree: copy.value.root },
        null,
        "toolgate: the write child's base",
        copy.value.head,
      )
    : sealed;
  if (!base.ok) {
    removeChange({ worktree: copy.value.root, admin });
    return refuse("task.worktree", `the write child's worktree could not be made: ${base.refusal.message}`);
  }
  const wt = { root: copy.value.root, top: copy.value.top, admin, gitDir, base: base.value };
  writeChange(root, {
    id,
    status: "running",
    pid: process.pid,
    top: wt.top,
    worktree: wt.root,
    git_dir: gitDir,
    base: wt.base,
    admin,
    files: [],
    created_ms: Math.round(ctx.now()),
  });
  return ok(wt);
}

/** The child's worktree is removed whatever became of it; a change it made is kept in the change's git folder. */
async function dropChange(ctx: ToolContext, root: string, id: string, wt: Worktree): Promise<void> {
  removeChange({ worktree: wt.root, admin: wt.admin });
  rmSync(join(root, `${id}.json`), { force: true });
  await git(ctx.processes, wt.top, ["worktree", "prune"]);
}

type Kept = { change_id: string; files: readonly FileStat[]; insertions: number; deletions: number } | null;

/**
 * The write child's change, read with the git folder and the tree fixed before it ran and recorded
 * for apply_change; none when it changed nothing or did not finish (`change_refused` says why when
 * its tree could not be read).
 */
async function keepChange(
  ctx: ToolContext,
  id: string,
  wt: Worktree,
  status: TaskStatus,
): Promise<{ change: Kept; change_refused?: string }> {
  const root = delegationOf(ctx).root!;
  const made =
    status === "done"
      ? await snapshot(
          ctx.processes,
          { gitDir: wt.gitDir, workTree: wt.root },
          wt.base,
          "toolgate: the write child's change",
        )
      : null;
  const stat = made?.ok ? await diffStat(ctx.processes, wt.gitDir, wt.base, made.value) : made;
  removeWorktree({ worktree: wt.root, admin: wt.admin });
  await git(ctx.processes, wt.top, ["worktree", "prune"]);
  if (stat === null || !stat.ok || stat.value.length === 0) {
    removeChange({ worktree: wt.root, admin: wt.admin });
    rmSync(join(root, `${id}.json`), { force: true });
    return {
      change: null,
      ...(stat && !stat.ok ? { change_refused: `${stat.refusal.code}: ${stat.refusal.message}` } : {}),
    };
  }
  writeChange(root, {
    id,
    status: "ready",
    top: wt.top,
    worktree: wt.root,
    git_dir: wt.gitDir,
    base: wt.base,
    change: (made as { value: string }).value,
    admin: wt.admin,
    files: stat.value,
    created_ms: Math.round(ctx.now()),
  });
  const sum = (k: "added" | "deleted") => stat.value.reduce((n, f) => n + (f[k] ?? 0), 0);
  return { change: { change_id: id, files: stat.value, insertions: sum("added"), deletions: sum("deleted") } };
}

/**
 * The child's config, written in its own folder (a sandboxed child sees that folder, not always the
 * parent's file): the parent's trusted config without what a child profile never offers or must
 * not redo (servers, Las, delegation) and without the places the flags give (workspace, state).
 * Under a sandbox the child already runs inside the parent's, so its own is off (bwrap cannot nest).
 */
export function childConfig(
  data: Readonly<Record<string, unknown>> | null,
  parentSandbox: string,
): Record<string, unknown> {
  const { mcpServers: _m, las: _l, delegation: _d, workspace: _w, state: _s, ...rest } = data ?? {};
  return parentSandbox === "off" ? rest : { ...rest, sandbox: "off" };
}

/**
 * The parent's denies, for the child's serve line. A write child works on a copy of the checkout,
 * so a denied path inside the workspace is denied at the same place in the worktree too (the copy
 * holds the same file).
 */
export function denyFlags(
  denies: Readonly<Partial<Record<string, true | readonly string[]>>>,
  ws: string,
  worktree: string | undefined,
): string[] {
  const out: string[] = [];
  for (const [kind, v] of Object.entries(denies)) {
    if (v === undefined) continue;
    if (v === true) {
      out.push(`--deny-${kind}`);
      continue;
    }
    const paths = kind === "read" || kind === "write" ? v.map((p) => resolve(ws, p)) : [...v];
    const mapped =
      worktree && (kind === "read" || kind === "write")
        ? paths.flatMap((p) => (isInside(ws, p) ? [p, join(worktree, relative(ws, p))] : [p]))
        : paths;
    if (mapped.length > 0) out.push(`--deny-${kind}=${mapped.join(",")}`);
  }
  return out;
}

/** The scout child reads what the parent may read: the same grant, or the workspace when the parent's is whole. */
function readFlags(grant: true | readonly string[] | undefined, ws: string): string[] {
  if (grant === true) return [`--allow-read=${ws}`];
  if (grant === undefined || grant.length === 0) return [];
  return [`--allow-read=${grant.join(",")}`];
}
