// serve's journal connection checkpoints its WAL when calls pause, not inside a call: a checkpoint
// syncs the WAL and the database file, which on a busy disk stalls the write that triggers it.
// Real SQLite files: what the database file itself holds tells whether a checkpoint ran.
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { checkpointWhenIdle, openState } from "../../src/state/db.ts";
import { callJournal, selfMark, type JournalRow } from "../../src/state/journal.ts";
import { tempDir } from "../helpers.ts";
import { WAIT_MS, waitFor } from "../support/wait.ts";

const row: JournalRow = {
  time_ms: 1,
  tool: "plan",
  origin: "builtin",
  digest: "d",
  effect: "idempotent-write",
  status: "success",
  error_code: null,
  duration_ms: 1,
  args_preview: "{}",
  result_bytes: 10,
  detail: null,
};

/** The journal rows in the database file alone (a copy without its WAL): what checkpoints moved there. */
function rowsInFile(stateDir: string, scratch: string): number {
  const copy = join(scratch, `copy-${Math.random().toString(36).slice(2)}.db`);
  copyFileSync(join(stateDir, "toolgate.db"), copy);
  const db = new Database(copy, { readonly: true });
  try {
    const t = db.query("SELECT name FROM sqlite_master WHERE name = 'journal'").get();
    return t === null ? 0 : (db.query("SELECT count(*) AS n FROM journal").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("checkpoints when idle", () => {
  test("a run of calls past SQLite's 1,000-page checkpoint stays in the WAL; a pause moves it into the database file", async () => {
    await using dir = tempDir();
    const state = join(dir.path, "state");
    const db = openState(state);
    const wrote = checkpointWhenIdle(db, 100);
    // 700 calls, a started and a finished row each: 1,400 WAL pages, past SQLite's default of 1,000.
    for (let i = 0; i < 700; i++) {
      const j = callJournal(() => db, selfMark);
      j.started(row);
      j.finished(row);
      wrote();
    }
    expect(rowsInFile(state, dir.path)).toBe(0);
    let moved = 0;
    await waitFor(
      "the rows checkpointed into the file",
      () => (moved = rowsInFile(state, dir.path)) >= 700,
      WAIT_MS,
      20,
    );
    expect(moved).toBe(700);
    db.close();
  });

  test("a connection that is not serve's keeps SQLite's default (a checkpoint every 1,000 pages)", async () => {
    await using dir = tempDir();
    const state = join(dir.path, "state");
    const db = openState(state);
    for (let i = 0; i < 700; i++) {
      const j = callJournal(() => db, selfMark);
      j.started(row);
      j.finished(row);
    }
    expect(rowsInFile(state, dir.path)).toBeGreaterThan(0);
    db.close();
  });
});
