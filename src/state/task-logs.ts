// A background task's output as SQLite keeps it: chunks in order, at most LOG_CHUNKS_CAP of them
// (past the cap the oldest go, counted in the task's log_dropped), all of them dropped with a result
// the boundary rejected. Apart from the task rows (tasks.ts): the supervisor writes them in batches
// (tasks/live-log.ts), `tasks log` and the model's task board (task-board.ts) read them.
import type { Database } from "bun:sqlite";

/** Chunks kept per task in SQLite (the whole stream stays in the 0600 artifacts); oldest dropped first. */
export const LOG_CHUNKS_CAP = 256;
export const LOG_CHUNK_CHARS = 8_192;

export interface LogChunk {
  readonly seq: number;
  readonly stream: string;
  readonly text: string;
}

/** Appends text as chunks; past the cap the oldest go, counted in log_dropped. */
export function appendLog(db: Database, id: string, stream: string, text: string): void {
  appendLogs(db, id, [{ stream, text }], 0);
}

/**
 * One batch of a running task's output (tasks/live-log.ts), in order, in one transaction; past
 * the cap the oldest chunks go, counted in log_dropped with `droppedBefore` (chunks the batcher
 * itself dropped before they reached the database).
 */
export function appendLogs(
  db: Database,
  id: string,
  pieces: readonly { stream: string; text: string }[],
  droppedBefore: number,
): void {
  if (droppedBefore === 0 && pieces.every((p) => p.text === "")) return;
  db.transaction(() => {
    const last =
      (db.query("SELECT MAX(seq) AS s FROM task_logs WHERE task_id = $id").get({ id }) as { s: number | null }).s ?? 0;
    let seq = last;
    const insert = db.query("INSERT INTO task_logs (task_id, seq, stream, text) VALUES ($id, $seq, $stream, $text)");
    for (const { stream, text } of pieces) {
      for (let i = 0; i < text.length; i += LOG_CHUNK_CHARS)
        insert.run({ id, seq: ++seq, stream, text: text.slice(i, i + LOG_CHUNK_CHARS) });
    }
    const excess = seq - LOG_CHUNKS_CAP;
    const dropped =
      droppedBefore +
      (excess > 0
        ? db.query("DELETE FROM task_logs WHERE task_id = $id AND seq <= $upto").run({ id, upto: excess }).changes
        : 0);
    if (dropped > 0) db.query("UPDATE tasks SET log_dropped = log_dropped + $n WHERE id = $id").run({ id, n: dropped });
  }).immediate();
}

/** Removes every kept chunk (counted as dropped): a result the boundary rejected takes its log with it. */
export function dropLogs(db: Database, id: string): void {
  db.transaction(() => {
    const n = db.query("DELETE FROM task_logs WHERE task_id = $id").run({ id }).changes;
    if (n > 0) db.query("UPDATE tasks SET log_dropped = log_dropped + $n WHERE id = $id").run({ id, n });
  }).immediate();
}

export const readLogs = (db: Database, id: string, afterSeq = 0): LogChunk[] =>
  db
    .query("SELECT seq, stream, text FROM task_logs WHERE task_id = $id AND seq > $after ORDER BY seq")
    .all({ id, after: afterSeq }) as LogChunk[];
