// The journal: one `tool_finished` row per call, refused and denied calls included,
// so it answers "what was tried, and what was stopped". Never a value the boundary refused.
import type { Database } from "bun:sqlite";

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
}

export function appendJournal(db: Database, row: JournalRow): void {
  db.query(
    `INSERT INTO journal (time_ms, event, tool, origin, digest, effect, status, error_code, duration_ms, args_preview, result_bytes, detail)
     VALUES ($time_ms, 'tool_finished', $tool, $origin, $digest, $effect, $status, $error_code, $duration_ms, $args_preview, $result_bytes, $detail)`,
  ).run(row as unknown as Record<string, string | number | null>);
}

export interface JournalEntry extends JournalRow {
  readonly id: number;
  readonly event: string;
}

/** The action window: the last `n` rows, oldest first. */
export function lastActions(db: Database, n: number): JournalEntry[] {
  const rows = db.query(`SELECT * FROM journal ORDER BY id DESC LIMIT $n`).all({ n }) as JournalEntry[];
  return rows.reverse();
}
