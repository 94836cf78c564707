// The journal: one row per call, refused and denied calls included, so it answers "what was
// tried, and what was stopped". A call that reaches its adapter is written first ("tool_started",
// before any effect) and finished in place after; one never finished shows as indeterminate.
// Never a value the boundary refused.
import type { Database, Statement } from "bun:sqlite";
import { redactText } from "../boundary/redact.ts";
import { processRuns, readStat } from "../launcher/proc-tree.ts";
import type { Code } from "../result/codes.ts";

export interface JournalRow {
  readonly time_ms: number;
  readonly tool: string;
  readonly origin: string | null;
  readonly digest: string | null;
  readonly effect: string | null;
  readonly status: string;
  readonly error_code: string | null;
  readonly duration_ms: number;
  readonly args_preview: string;
  readonly result_bytes: number;
  /** Structured, value-free detail (e.g. which boundary rule fired and where). */
  readonly detail: string | null;
  /** A served caller's token subject and client (serve --http --oauth-issuer); absent otherwise. */
  readonly caller_sub?: string | null;
  readonly caller_client?: string | null;
}

/** A process, named so that a reused pid is never mistaken for it. */
export interface ProcessMark {
  readonly pid: number;
  /** Start time in clock ticks since boot (/proc/PID/stat); null where there is no /proc. */
  readonly start: number | null;
}

let self: ProcessMark | undefined;
/** This process's mark, read once: a process's pid and start time never change, and serve writes a row per call. */
export const selfMark = (): ProcessMark => (self ??= { pid: process.pid, start: readStat(process.pid)?.start ?? null });

/** Whether the process that wrote a started row still runs (same pid, same start time where there is /proc). */
export const stillRunning = (mark: ProcessMark): boolean => processRuns(mark.pid, mark.start);

const COLUMNS =
  "time_ms, event, tool, origin, digest, effect, status, error_code, duration_ms, args_preview, result_bytes, " +
  "detail, pid, pid_start, caller_sub, caller_client";
const VALUES =
  "$time_ms, $event, $tool, $origin, $digest, $effect, $status, $error_code, $duration_ms, $args_preview, " +
  "$result_bytes, $detail, $pid, $pid_start, $caller_sub, $caller_client";

type Params = Record<string, string | number | null>;

const INSERT = `INSERT INTO journal (${COLUMNS}) VALUES (${VALUES})`;
const FINISH = `UPDATE journal SET event = 'tool_finished', status = $status, error_code = $error_code, duration_ms = $duration_ms,
   result_bytes = $result_bytes, detail = $detail, pid = NULL, pid_start = NULL WHERE id = $id`;

/** The journal's two write statements, prepared once per connection (serve writes both on every call). */
const prepared = new WeakMap<Database, { readonly insert: Statement; readonly finish: Statement }>();
function statements(db: Database) {
  let s = prepared.get(db);
  if (!s) prepared.set(db, (s = { insert: db.prepare(INSERT), finish: db.prepare(FINISH) }));
  return s;
}

export function appendJournal(
  db: Database,
  row: JournalRow,
  event = "tool_finished",
  mark: ProcessMark | null = null,
): number {
  const params: Params = {
    time_ms: row.time_ms,
    event,
    tool: row.tool,
    origin: row.origin,
    digest: row.digest,
    effect: row.effect,
    status: row.status,
    error_code: row.error_code,
    duration_ms: row.duration_ms,
    args_preview: row.args_preview,
    result_bytes: row.result_bytes,
    detail: row.detail,
    pid: mark?.pid ?? null,
    pid_start: mark?.start ?? null,
    caller_sub: row.caller_sub ?? null,
    caller_client: row.caller_client ?? null,
  };
  return Number(statements(db).insert.run(params).lastInsertRowid);
}

/**
 * The one hook on the journal's write path: sees each row of a call once it is written (telemetry
 * makes a span of it, src/telemetry/). `adopted`: a task child's row filed under the call. It cannot
 * fail the journal: what it throws is dropped.
 */
export type JournalTap = (event: "tool_started" | "tool_finished" | "adopted", row: JournalRow) => void;

const tell = (tap: JournalTap | undefined, event: Parameters<JournalTap>[0], row: JournalRow) => {
  try {
    tap?.(event, row);
  } catch {
    // telemetry is never in the way of the record
  }
};

/** One call's row: `started` before the adapter, `finished` after (or alone, for a refused call). */
export interface CallJournal {
  /** Throws when the row cannot be written: then the call must not run. */
  started(row: JournalRow): void;
  finished(row: JournalRow): void;
  /** The started row's id (what a created resource points back to), once written. */
  rowId(): number | undefined;
}

export function callJournal(db: () => Database, mark: () => ProcessMark, tap?: JournalTap): CallJournal {
  let id: number | undefined;
  return {
    started: (row) => {
      id = appendJournal(db(), row.status === "started" ? row : { ...row, status: "started" }, "tool_started", mark());
      tell(tap, "tool_started", row);
    },
    rowId: () => id,
    finished: (row) => {
      if (id === undefined) {
        appendJournal(db(), row);
        return tell(tap, "tool_finished", row);
      }
      statements(db()).finish.run({
        id,
        status: row.status,
        error_code: row.error_code,
        duration_ms: row.duration_ms,
        result_bytes: row.result_bytes,
        detail: row.detail,
      });
      tell(tap, "tool_finished", row);
    },
  };
}

export interface JournalEntry extends JournalRow {
  readonly id: number;
  readonly event: string;
  /** The task call this row is a child call of (null: a call of its own). */
  readonly parent?: number | null;
}

/**
 * A task child's rows (its own journal, in `from`) copied into `db` under the parent call, in the
 * order they happened; a child call never finished keeps its dead process mark (indeterminate).
 */
export function adoptJournal(
  db: Database,
  from: Database,
  parent: number | null,
  secrets: readonly string[] = [],
  tap?: JournalTap,
): number {
  const rows = from.query(`SELECT ${COLUMNS} FROM journal ORDER BY id`).all() as Params[];
  const insert = db.query(`INSERT INTO journal (${COLUMNS}, parent) VALUES (${VALUES}, $parent)`);
  const redact = (r: Params): Params =>
    secrets.length === 0
      ? r
      : (Object.fromEntries(
          Object.entries(r).map(([k, v]) => [k, typeof v === "string" ? redactText(v, secrets) : v]),
        ) as Params);
  db.transaction(() => {
    for (const r of rows) insert.run({ ...redact(r), parent });
  })();
  for (const r of rows) tell(tap, "adopted", redact(r) as unknown as JournalRow);
  return rows.length;
}

/** The error code of a call started and never finished: its process ended mid-call. */
export const UNFINISHED = "journal.unfinished" satisfies Code;
