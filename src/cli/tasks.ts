// `toolgate tasks list|status|logs|cancel|wait|prune`: the operator's view of background tasks in
// this lane (--lane; `list --all` every lane). Ids may be abbreviated to a unique prefix. Reading
// a task whose supervisor is gone turns it `lost` (tasks.ts reconcile).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { defineCommand } from "citty";
import type { Database } from "bun:sqlite";
import { escapeOutput, jsonForTerminal } from "../result/escape.ts";
import { exitCodeFor } from "../result/exit.ts";
import { CliError, ExitCode, usageError, type Envelope } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import { loadEffective } from "../runtime/boot.ts";
import { trustGate } from "../trust/gate.ts";
import { authoredLoader } from "../runtime/authored.ts";
import { DB_NAME, openState } from "../state/db.ts";
import { findTask, listTasks, pruneTasks, readLogs, requestCancel, type TaskRow } from "../state/tasks.ts";
import { superviseTask } from "../tasks/supervise.ts";
import { bootInput, type RunContext } from "./context.ts";
import { bool, scanFlags, str } from "./flags.ts";
import { stateError } from "./state.ts";
import { checkStateFolder } from "../config/layout.ts";
import { note, outputWidth, table, tell, writeOut } from "./ui.ts";

/** `tasks wait` when the timeout passes first (as timeout(1) does): never 0, never an outcome's code. */
export const WAIT_TIMEOUT_EXIT = 124;
/** Polling starts quick and backs off: many waiters on many tasks stay cheap. */
const POLL_MS = 20;
const POLL_MAX_MS = 250;
const LIST_LIMIT = 100;
const CANCEL_SETTLE_MS = 15_000;

export default defineCommand({
  meta: {
    name: "tasks",
    description:
      "Background tasks (call --background): list [--all], status ID, logs ID [--follow], cancel ID, wait ID [--timeout S] (exits with the task's code; 124 on timeout), prune [--older-than 7d]",
  },
  args: {
    action: { type: "positional", description: "list | status | logs | cancel | wait | prune", required: false },
    id: { type: "positional", description: "Task id or a unique prefix of it", required: false },
    all: { type: "boolean", description: "list: every lane's tasks, not only this lane's" },
    follow: { type: "boolean", description: "logs: keep printing until the task ends" },
    timeout: { type: "string", description: "wait: give up after S seconds (exit 124)", valueHint: "S" },
    "older-than": {
      type: "string",
      description: "prune: remove ended tasks older than this (30m, 12h, 7d; default 7d)",
      valueHint: "D",
    },
  },
});

const FLAGS = {
  all: { kind: "bool" },
  follow: { kind: "bool" },
  timeout: { kind: "string" },
  "older-than": { kind: "string" },
  "state-dir": { kind: "string" },
} as const;

export async function runTasks(ctx: RunContext): Promise<number> {
  const s = scanFlags(ctx.argv, FLAGS);
  const [action = "list", id, ...extra] = s.positionals;
  if (extra.length > 0) throw usageError(`unexpected argument "${extra[0]}"`);
  // The detached supervisor: started only by `call --background`, with the state folder it chose.
  if (action === "supervise") {
    const dir = str(s, "state-dir");
    if (id === undefined || dir === undefined) throw usageError("tasks supervise is started by call --background");
    return await superviseTask(id, dir, ctx.env);
  }
  const lane = str(s, "lane") ?? "default";
  const needsId = ["status", "logs", "cancel", "wait"];
  if (!["list", "prune", ...needsId].includes(action))
    throw usageError(
      `unknown tasks action "${action}"${didYouMean(nearest(action, ["list", "prune", ...needsId]))}`,
      "toolgate tasks list | status ID | logs ID [--follow] | cancel ID | wait ID [--timeout S] | prune [--older-than D]",
    );
  if (needsId.includes(action) && id === undefined)
    throw usageError(`tasks ${action} needs a task id (or a unique prefix)`, "toolgate tasks list shows them");
  const timeoutMs = parseTimeout(str(s, "timeout"));
  const olderMs = parseAge(str(s, "older-than") ?? "7d");
  const input = bootInput(ctx, s);
  const { config, file } = await loadEffective(input);
  const authored = await authoredLoader(config); // TOOLGATE_TRUST may pin the authored tools too
  trustGate(
    {
      file,
      values: config.values,
      workspaceFlag: input.workspaceFlag !== undefined,
      scratchFlag: input.scratchFlag !== undefined,
    },
    {
      env: input.env,
      cwd: input.cwd,
      workspaceFlag: input.workspaceFlag,
      workspace: config.values.workspace,
      ...(authored ? { authoredDigests: authored.digests } : {}),
    },
  );
  const stateDir = config.values.state;
  checkStateFolder(config);
  // Reading never creates a state folder.
  if (!existsSync(join(stateDir, DB_NAME))) {
    if (action === "list" || action === "prune") return 0;
    return missing(id!);
  }
  let db: Database;
  try {
    db = openState(stateDir, action === "cancel" || action === "prune");
  } catch (e) {
    throw stateError(config, e, "the tasks cannot be read");
  }
  const json = bool(s, "json") || !ctx.stdoutIsTTY;
  try {
    if (action === "list") return list(db, bool(s, "all") ? null : lane, json, outputWidth(ctx));
    if (action === "prune") {
      const n = pruneTasks(db, Date.now() - olderMs, bool(s, "all") ? null : lane);
      note(`removed ${n} ended task${n === 1 ? "" : "s"}`);
      return 0;
    }
    const found = find(db, id!, lane);
    if (action === "status") return show(found, json);
    if (action === "logs") return await logs(db, found, lane, bool(s, "follow"), ctx.stdoutIsTTY);
    if (action === "cancel") return await cancel(db, found, lane, json);
    return await wait(db, found, lane, timeoutMs, json);
  } finally {
    db.close();
  }
}

const clock = { now: Date.now };

function find(db: Database, id: string, lane: string): TaskRow {
  const f = findTask(db, id, lane, clock);
  if (!f.ok)
    throw new CliError(
      ExitCode.failed,
      f.message,
      f.code === "task.not_found"
        ? "toolgate tasks list shows this lane's tasks (--lane NAME for another lane's)"
        : undefined,
    );
  return f.row;
}

function missing(id: string): never {
  throw new CliError(ExitCode.failed, `no task ${JSON.stringify(id)}; toolgate tasks list shows this lane's tasks`);
}

const ACTIVE = new Set(["queued", "running"]);

/** The operator's view of a row: everything but the admitted request (arguments in full, grants). */
export function operatorView(r: TaskRow) {
  return {
    id: r.id,
    kind: r.kind,
    owner: r.owner,
    source_tool: r.source_tool,
    status: r.status,
    summary: r.summary,
    exit_reason: r.exit_reason,
    args_preview: r.args_preview,
    write_scope: r.write_scope,
    created_ms: r.created_ms,
    started_ms: r.started_ms,
    ended_ms: r.ended_ms,
    supervisor_pid: r.pid,
    log_dropped: r.log_dropped,
    result: r.result === null ? null : (JSON.parse(r.result) as unknown),
  };
}

function list(db: Database, owner: string | null, json: boolean, width: number): number {
  const rows = listTasks(db, owner, LIST_LIMIT, clock);
  if (json) {
    if (rows.length) writeOut(rows.map((r) => jsonForTerminal({ ...operatorView(r), result: undefined })).join("\n"));
    return 0;
  }
  const out = [["ID", "LANE", "TOOL", "STATUS", "CREATED", "SUMMARY"]];
  for (const r of rows)
    out.push([r.id, r.owner, r.source_tool, r.status, new Date(r.created_ms).toISOString(), r.summary ?? ""]);
  writeOut(rows.length ? table(out, width) : "(no tasks)");
  return 0;
}

function show(r: TaskRow, json: boolean): number {
  writeOut(jsonForTerminal(operatorView(r), json ? undefined : 2));
  return 0;
}

/** The code `call` would have exited with: the envelope's when there is one; lost is indeterminate. */
export function taskExitCode(r: TaskRow): number {
  if (r.result !== null) return exitCodeFor(JSON.parse(r.result) as Envelope);
  if (r.status === "succeeded") return ExitCode.success;
  if (r.status === "lost" || r.status === "indeterminate") return ExitCode.indeterminate;
  return ExitCode.failed;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls the row (reconciling lost supervisors) until it is final or `untilMs` passes. */
async function settle(db: Database, id: string, lane: string, untilMs: number): Promise<TaskRow> {
  for (let pause = POLL_MS; ; pause = Math.min(pause * 1.5, POLL_MAX_MS)) {
    const r = find(db, id, lane);
    if (!ACTIVE.has(r.status) || Date.now() >= untilMs) return r;
    await sleep(Math.min(pause, Math.max(1, untilMs - Date.now())));
  }
}

async function wait(db: Database, r: TaskRow, lane: string, timeoutMs: number, json: boolean): Promise<number> {
  const final = await settle(db, r.id, lane, Date.now() + timeoutMs);
  writeOut(jsonForTerminal(operatorView(final), json ? undefined : 2));
  if (ACTIVE.has(final.status)) {
    await tell(
      "warn",
      `task ${final.id} is still ${final.status} after ${timeoutMs / 1000} s (exit ${WAIT_TIMEOUT_EXIT})`,
    );
    return WAIT_TIMEOUT_EXIT;
  }
  return taskExitCode(final);
}

async function cancel(db: Database, r: TaskRow, lane: string, json: boolean): Promise<number> {
  if (!requestCancel(db, r.id)) {
    note(`task ${r.id} had already ended (${r.status})`);
    return show(r, json);
  }
  // The supervisor ends the tree (TERM, grace, KILL), writes the final row, then it is shown.
  const final = await settle(db, r.id, lane, Date.now() + CANCEL_SETTLE_MS);
  if (ACTIVE.has(final.status))
    await tell(
      "warn",
      `task ${final.id} was asked to cancel and is still ${final.status}; toolgate tasks wait ${final.id}`,
    );
  return show(final, json);
}

/** On a terminal the output is escaped (an OSC 52 or CSI in it is shown, not obeyed); piped, it is as written. */
async function logs(db: Database, r: TaskRow, lane: string, follow: boolean, tty: boolean): Promise<number> {
  let seq = 0;
  const flush = () => {
    for (const c of readLogs(db, r.id, seq)) {
      process.stdout.write(tty ? escapeOutput(c.text) : c.text);
      seq = c.seq;
    }
  };
  if (r.log_dropped > 0)
    note(
      `(${r.log_dropped} older log chunk${r.log_dropped === 1 ? "" : "s"} dropped; the whole output is in the task's artifacts)`,
    );
  flush();
  // --follow ends when the task does (lost included): one last read after the final row.
  for (let cur = r, pause = POLL_MS; follow && ACTIVE.has(cur.status); pause = Math.min(pause * 1.5, POLL_MAX_MS)) {
    await sleep(pause);
    flush();
    cur = find(db, r.id, lane);
    if (!ACTIVE.has(cur.status)) flush();
  }
  return 0;
}

function parseTimeout(raw: string | undefined): number {
  if (raw === undefined) return Infinity;
  const n = Number(raw);
  if (!(n >= 0) || !Number.isFinite(n))
    throw usageError(`--timeout ${raw}: expected seconds (a number, 0 or more)`, "for example --timeout 30");
  return n * 1000;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
function parseAge(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)([smhd])$/.exec(raw);
  if (!m) throw usageError(`--older-than ${raw}: expected a number and a unit (30m, 12h, 7d)`);
  return Number(m[1]) * UNITS[m[2]!]!;
}
