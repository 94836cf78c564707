// Background task rows: create (refusing a busy write scope), claim by the
// supervisor, finish once, cancel requests, lane-scoped lookup by unique id prefix, pruning, and
// lost detection: an active task whose supervisor (pid + start time) is gone is `lost`.
// A task's log chunks are in task-logs.ts, the model's view of the rows in task-board.ts.
import type { Database } from "bun:sqlite";
import { randomHex } from "../launcher/artifacts.ts";
import { endOrphanSession, type TreeMark } from "../launcher/orphan-session.ts";
import { appendJournal, stillRunning, type ProcessMark } from "./journal.ts";

export const ACTIVE = ["queued", "running"] as const;
export const FINAL = ["succeeded", "failed", "cancelled", "lost", "indeterminate"] as const;
export type TaskStatus = (typeof ACTIVE)[number] | (typeof FINAL)[number];

/** A queued task whose caller never recorded a supervisor within this long is lost. */
export const UNCLAIMED_MS = 60_000;

export interface TaskRow {
  readonly id: string;
  readonly kind: string;
  readonly owner: string;
  readonly source_tool: string;
  readonly args_preview: string;
  readonly status: TaskStatus;
  readonly summary: string | null;
  readonly exit_reason: string | null;
  readonly result: string | null;
  readonly write_scope: string | null;
  readonly request: string | null;
  readonly cancel_requested: number;
  readonly created_ms: number;
  readonly started_ms: number | null;
  readonly ended_ms: number | null;
  readonly pid: number | null;
  readonly pid_start: number | null;
  readonly log_dropped: number;
  readonly artifacts: string | null;
  /** JSON [{pid, start, tag}] of the call trees running now (tasks/tree-marks.ts). */
  readonly trees: string | null;
}

export interface NewTask {
  readonly kind: string;
  readonly owner: string;
  readonly source_tool: string;
  readonly args_preview: string;
  readonly write_scope: string | null;
  readonly request: string;
  readonly now: number;
}

export type Created =
  | { ok: true; id: string }
  | { ok: false; code: "task.write_scope_busy"; message: string; holder: string };

export interface Clock {
  readonly now: () => number;
  /** Whether a supervisor still runs (pid and start time); injected so tests can decide. */
  readonly running?: (m: ProcessMark) => boolean;
  /** Ends what a gone supervisor left running (default: launcher/orphan-session.ts); injected for tests. */
  readonly endTree?: (m: TreeMark) => void;
}

const isActive = (s: string) => s === "queued" || s === "running";

/** Creates a queued task; a second active task with the same non-empty write scope is refused, naming the holder. */
export function createTask(db: Database, t: NewTask, clock: Clock): Created {
  return db
    .transaction((): Created => {
      const scope = t.write_scope === "" ? null : t.write_scope;
      if (scope !== null) {
        const holders = db
          .query("SELECT * FROM tasks WHERE write_scope = $scope AND status IN ('queued','running')")
          .all({ scope }) as TaskRow[];
        const live = reconcile(db, holders, clock).filter((h) => isActive(h.status));
        if (live.length > 0) {
          const h = live[0]!;
          return {
            ok: false,
            code: "task.write_scope_busy",
            holder: h.id,
            message:
              `write scope ${JSON.stringify(scope)} is held by active task ${h.id} (${h.source_tool}, ` +
              `${h.status}); wait for it (toolgate tasks wait ${h.id}) or cancel it`,
          };
        }
      }
      const id = randomHex().slice(0, 16);
      db.query(
        `INSERT INTO tasks (id, kind, owner, source_tool, args_preview, status, write_scope, request, created_ms)
         VALUES ($id, $kind, $owner, $source_tool, $args_preview, 'queued', $scope, $request, $now)`,
      ).run({
        id,
        kind: t.kind,
        owner: t.owner,
        source_tool: t.source_tool,
        args_preview: t.args_preview,
        scope,
        request: t.request,
        now: t.now,
      });
      return { ok: true, id };
    })
    .immediate();
}

/** The caller records the supervisor it started (unless the supervisor already claimed the row). */
export function recordSupervisor(db: Database, id: string, mark: ProcessMark, artifacts: string): void {
  db.query(
    "UPDATE tasks SET pid = COALESCE(pid, $pid), pid_start = COALESCE(pid_start, $start), artifacts = " +
      "$artifacts WHERE id = $id",
  ).run({ id, pid: mark.pid, start: mark.start, artifacts });
}

/** The supervisor keeps the marks of the call trees it runs now (none once they ended). */
export function recordTrees(db: Database, id: string, marks: readonly TreeMark[]): void {
  db.query("UPDATE tasks SET trees = $trees WHERE id = $id").run({
    id,
    trees: marks.length ? JSON.stringify(marks) : null,
  });
}

/** The supervisor takes its queued task: running, with its own mark. Null when it is not queued (cancelled, lost). */
export function claimTask(db: Database, id: string, mark: ProcessMark, now: number): TaskRow | null {
  return db
    .transaction(() => {
      const r = db.query("SELECT * FROM tasks WHERE id = $id").get({ id }) as TaskRow | null;
      if (r?.status !== "queued") return null;
      db.query(
        "UPDATE tasks SET status = 'running', started_ms = $now, pid = $pid, pid_start = $start WHERE id = $id",
      ).run({ id, now, pid: mark.pid, start: mark.start });
      appendJournal(db, taskJournalRow(r, "started", null, now), "task_started");
      return { ...r, status: "running" as const, started_ms: now, pid: mark.pid, pid_start: mark.start };
    })
    .immediate();
}

export interface Ending {
  readonly status: (typeof FINAL)[number];
  readonly summary: string | null;
  readonly exit_reason: string | null;
  readonly result: string | null;
  readonly error_code?: string | null;
}

/**
 * The one final write: status, exit reason, result and end time together with the task_finished
 * row, in one transaction, so nobody ever sees a final status before the row is complete.
 * Only an active task ends; false when it had already ended (lost, or finished elsewhere).
 */
export function finishTask(db: Database, id: string, e: Ending, now: number): boolean {
  return db
    .transaction(() => {
      const r = db.query("SELECT * FROM tasks WHERE id = $id").get({ id }) as TaskRow | null;
      if (!r || !isActive(r.status)) return false;
      db.query(
        `UPDATE tasks SET status = $status, summary = $summary, exit_reason = $exit_reason, result = $result, ended_ms = $now, request = NULL, trees = NULL
         WHERE id = $id`,
      ).run({ id, status: e.status, summary: e.summary, exit_reason: e.exit_reason, result: e.result, now });
      const code = e.status === "succeeded" ? null : (e.error_code ?? e.exit_reason);
      appendJournal(db, taskJournalRow({ ...r, result: e.result }, e.status, code, now), "task_finished");
      return true;
    })
    .immediate();
}

function taskJournalRow(r: TaskRow, status: string, code: string | null, now: number) {
  return {
    time_ms: now,
    tool: r.source_tool,
    origin: null,
    digest: null,
    effect: null,
    status,
    error_code: code,
    duration_ms: Math.max(0, Math.round(now - (r.started_ms ?? r.created_ms))),
    args_preview: r.args_preview,
    result_bytes: r.result === null ? 0 : Buffer.byteLength(r.result),
    detail: JSON.stringify({ task_id: r.id, kind: r.kind }),
  };
}

/** Active rows whose supervisor is gone become lost (journaled once: only the update that changes the row journals). */
export function reconcile(db: Database, rows: readonly TaskRow[], clock: Clock): TaskRow[] {
  const running = clock.running ?? stillRunning;
  return rows.map((r) => {
    if (!isActive(r.status)) return r;
    const gone =
      r.pid === null ? clock.now() - r.created_ms > UNCLAIMED_MS : !running({ pid: r.pid, start: r.pid_start });
    if (!gone) return r;
    const reason = r.pid === null ? "supervisor.never_started" : "supervisor.gone";
    const summary =
      "the task's supervisor is gone (its process ended or its pid now names another process); the effect is unknown";
    // The final row first (so a supervisor that is alive after all cannot finish it as "failed"
    // because its tree was killed), then what it left running ends (pid, start time and mark checked),
    // by the one reader that made the task lost.
    if (finishTask(db, r.id, { status: "lost", summary, exit_reason: reason, result: null }, clock.now())) {
      const end = clock.endTree ?? endOrphanSession;
      for (const m of treesOf(r.trees)) end(m);
    }
    return (db.query("SELECT * FROM tasks WHERE id = $id").get({ id: r.id }) as TaskRow | null) ?? r;
  });
}

/** The trees a row names: whatever the row holds (it may be forged), only objects go on to be checked. */
function treesOf(json: string | null): TreeMark[] {
  if (json === null) return [];
  try {
    const v: unknown = JSON.parse(json);
    return Array.isArray(v) ? v.filter((m): m is TreeMark => typeof m === "object" && m !== null) : [];
  } catch {
    return [];
  }
}

export type Found =
  | { ok: true; row: TaskRow }
  | { ok: false; code: "task.not_found" | "task.ambiguous"; message: string };

/**
 * One task by id or unique prefix, as git takes them; `owner` (a lane) sees only its own: another
 * lane's id answers exactly like a missing one. null owner: every lane (operator --all).
 */
export function findTask(db: Database, idOrPrefix: string, owner: string | null, clock: Clock): Found {
  const missing: Found = {
    ok: false,
    code: "task.not_found",
    message: `no task ${JSON.stringify(idOrPrefix)}; toolgate tasks list shows this lane's tasks`,
  };
  if (!/^[0-9a-f]{1,16}$/.test(idOrPrefix)) return missing;
  const rows = db
    .query(`SELECT * FROM tasks WHERE id >= $lo AND id < $hi ${owner === null ? "" : "AND owner = $owner"} LIMIT 2`)
    .all({ lo: idOrPrefix, hi: `${idOrPrefix}g`, ...(owner === null ? {} : { owner }) }) as TaskRow[];
  if (rows.length === 0) return missing;
  if (rows.length > 1)
    return {
      ok: false,
      code: "task.ambiguous",
      message: `task prefix ${JSON.stringify(idOrPrefix)} names more than one task; give more characters`,
    };
  return { ok: true, row: reconcile(db, rows, clock)[0]! };
}

/** The lane's tasks (or every lane's), newest first; active ones reconciled. */
export function listTasks(db: Database, owner: string | null, limit: number, clock: Clock): TaskRow[] {
  const rows = db
    .query(
      `SELECT * FROM tasks ${owner === null ? "" : "WHERE owner = $owner"} ORDER BY created_ms DESC, id LIMIT $limit`,
    )
    .all({ limit, ...(owner === null ? {} : { owner }) }) as TaskRow[];
  return rows.some((r) => isActive(r.status)) ? reconcile(db, rows, clock) : rows;
}

/** Asks the supervisor to cancel (it polls); false when the task is not active. */
export function requestCancel(db: Database, id: string): boolean {
  return (
    db.query("UPDATE tasks SET cancel_requested = 1 WHERE id = $id AND status IN ('queued','running')").run({ id })
      .changes > 0
  );
}

export const cancelRequested = (db: Database, id: string): boolean =>
  ((db.query("SELECT cancel_requested FROM tasks WHERE id = $id").get({ id }) as { cancel_requested: number } | null)
    ?.cancel_requested ?? 0) === 1;

/** Removes ended tasks (and their logs) that ended before `before` (ms); active ones are never pruned. */
export function pruneTasks(db: Database, before: number, owner: string | null): number {
  return db
    .transaction(() => {
      const where = `status NOT IN ('queued','running') AND ended_ms < $before ${owner === null ? "" : "AND owner = $owner"}`;
      const args = { before, ...(owner === null ? {} : { owner }) };
      db.query(`DELETE FROM task_logs WHERE task_id IN (SELECT id FROM tasks WHERE ${where})`).run(args);
      return db.query(`DELETE FROM tasks WHERE ${where}`).run(args).changes;
    })
    .immediate();
}
