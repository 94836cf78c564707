// The operator's side of a background task: finding it by id or prefix in a lane, the view of
// its row an operator is shown, waiting for it to end (reconciling a lost supervisor as it polls),
// and the code `call` would have exited with.
import type { Database } from "bun:sqlite";
import { exitCodeFor } from "../result/exit.ts";
import { CliError, ExitCode, usageError, type Envelope } from "../result/result.ts";
import { findTask, type TaskRow } from "../state/tasks.ts";

/** Polling starts quick and backs off: many waiters on many tasks stay cheap. */
export const POLL_MS = 20;
export const POLL_MAX_MS = 250;

const clock = { now: Date.now };
export const ACTIVE = new Set(["queued", "running"]);

export function find(db: Database, id: string, lane: string): TaskRow {
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

export function missing(id: string): never {
  throw new CliError(ExitCode.failed, `no task ${JSON.stringify(id)}; toolgate tasks list shows this lane's tasks`);
}

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

/** The code `call` would have exited with: the envelope's when there is one; lost is indeterminate. */
export function taskExitCode(r: TaskRow): number {
  if (r.result !== null) return exitCodeFor(JSON.parse(r.result) as Envelope);
  if (r.status === "succeeded") return ExitCode.success;
  if (r.status === "lost" || r.status === "indeterminate") return ExitCode.indeterminate;
  return ExitCode.failed;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls the row (reconciling lost supervisors) until it is final or `untilMs` passes. */
export async function settle(db: Database, id: string, lane: string, untilMs: number): Promise<TaskRow> {
  for (let pause = POLL_MS; ; pause = Math.min(pause * 1.5, POLL_MAX_MS)) {
    const r = find(db, id, lane);
    if (!ACTIVE.has(r.status) || Date.now() >= untilMs) return r;
    await sleep(Math.min(pause, Math.max(1, untilMs - Date.now())));
  }
}

export function parseTimeout(raw: string | undefined): number {
  if (raw === undefined) return Infinity;
  const n = Number(raw);
  if (!(n >= 0) || !Number.isFinite(n))
    throw usageError(`--timeout ${raw}: expected seconds (a number, 0 or more)`, "for example --timeout 30");
  return n * 1000;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
export function parseAge(raw: string): number {
  const m = /^(\d+(?:\.\d+)?)([smhd])$/.exec(raw);
  if (!m) throw usageError(`--older-than ${raw}: expected a number and a unit (30m, 12h, 7d)`);
  return Number(m[1]) * UNITS[m[2]!]!;
}
