// The journal's rows in a real SQLite file: a call's row written started, finished in place,
// and a started row whose process is gone read as indeterminate.
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { adoptChildState, openState } from "../../src/state/db.ts";
import { MIGRATIONS } from "../../src/state/migrations.ts";
import { readStat } from "../../src/launcher/proc-tree.ts";
import { callJournal, selfMark, stillRunning, type JournalRow } from "../../src/state/journal.ts";
import { lastActions } from "../../src/state/actions.ts";
import { tempDir } from "../helpers.ts";
import { makeStateFolder } from "../../src/state/folder.ts";

const row = (over: Partial<JournalRow> = {}): JournalRow => ({
  time_ms: 1,
  tool: "bash",
  origin: "builtin",
  digest: "d",
  effect: "irreversible",
  status: "success",
  error_code: null,
  duration_ms: 7,
  args_preview: "{}",
  result_bytes: 10,
  detail: null,
  ...over,
});

describe("call journal", () => {
  test("started then finished is one row, finished in place", async () => {
    await using dir = tempDir();
    const db = openState(dir.path);
    const j = callJournal(() => db, selfMark);
    j.started(row({ status: "started" }));
    expect(lastActions(db, 10).map((r) => [r.event, r.status])).toEqual([["tool_started", "running"]]);
    j.finished(row({ status: "failed", error_code: "bash.exit" }));
    expect(lastActions(db, 10).map((r) => [r.event, r.status, r.error_code, r.duration_ms])).toEqual([
      ["tool_finished", "failed", "bash.exit", 7],
    ]);
    db.close();
  });

  test("a refused call (never started) is one finished row", async () => {
    await using dir = tempDir();
    const db = openState(dir.path);
    callJournal(() => db, selfMark).finished(row({ status: "failed", error_code: "unknown_tool" }));
    expect(lastActions(db, 10).map((r) => [r.event, r.error_code])).toEqual([["tool_finished", "unknown_tool"]]);
    db.close();
  });

  test("a started row whose process is gone is indeterminate; a reused pid is not the same process", async () => {
    await using dir = tempDir();
    const db = openState(dir.path);
    callJournal(
      () => db,
      () => ({ pid: process.pid, start: -1 }),
    ).started(row({ status: "started" }));
    expect(lastActions(db, 10).map((r) => [r.status, r.error_code])).toEqual([["indeterminate", "journal.unfinished"]]);
    expect(stillRunning(selfMark())).toBe(true);
    expect(stillRunning({ pid: process.pid, start: -1 })).toBe(false);
    db.close();
  });

  test("selfMark is this process's pid and start time, read from /proc once (not once per row)", () => {
    const mark = selfMark();
    expect(mark).toEqual({ pid: process.pid, start: readStat(process.pid)!.start });
    expect(selfMark()).toBe(mark);
  });

  test("a database from before the started row is migrated in place", async () => {
    await using dir = tempDir();
    makeStateFolder(dir.path); // an older toolgate made it (and marked it) before the migration
    const old = new Database(join(dir.path, "toolgate.db"), { create: true });
    for (const [i, m] of MIGRATIONS.slice(0, 2).entries()) {
      old.run(m);
      old.run(`PRAGMA user_version = ${i + 1}`);
    }
    old.run(
      "INSERT INTO journal (time_ms, tool, status, duration_ms, args_preview, result_bytes) VALUES (1, 'file_read', 'success', 3, '{}', 5)",
    );
    old.close();
    const db = openState(dir.path);
    expect(lastActions(db, 10).map((r) => [r.event, r.tool, r.status])).toEqual([
      ["tool_finished", "file_read", "success"],
    ]);
    db.close();
  });

  test("a journal made with AUTOINCREMENT moves to a plain rowid with every row and id kept", async () => {
    await using dir = tempDir();
    makeStateFolder(dir.path);
    // The schema as the last toolgate before this step left it, written by that toolgate's steps.
    const before = MIGRATIONS.findIndex((m) => m.includes("journal_rowid"));
    expect(before).toBeGreaterThan(0);
    const old = new Database(join(dir.path, "toolgate.db"), { create: true });
    old.run("PRAGMA journal_mode = WAL");
    for (const [i, m] of MIGRATIONS.slice(0, before).entries()) {
      old.run(m);
      old.run(`PRAGMA user_version = ${i + 1}`);
    }
    expect((old.query("SELECT sql FROM sqlite_master WHERE name = 'journal'").get() as { sql: string }).sql).toContain(
      "AUTOINCREMENT",
    );
    const insert = old.query(
      "INSERT INTO journal (time_ms, event, tool, origin, digest, effect, status, error_code, duration_ms, args_preview, result_bytes, detail, pid, pid_start, parent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    );
    for (let i = 1; i <= 300; i++)
      insert.run(
        i,
        "tool_finished",
        `t${i}`,
        "builtin",
        "d",
        "read",
        "success",
        null,
        i,
        `{"i":${i}}`,
        10 * i,
        i % 7 === 0 ? '{"rule":"x"}' : null,
        null,
        null,
        i % 5 === 0 ? i - 1 : null,
      );
    insert.run(
      301,
      "tool_started",
      "bash",
      "builtin",
      "d",
      "irreversible",
      "started",
      null,
      0,
      "{}",
      0,
      null,
      2 ** 22 + 1,
      1,
      null,
    );
    old.run(
      "INSERT INTO created_resources (time_ms, tool, kind, resource_id, journal_id) VALUES (1, 't5', 'chat', 'c1', 5)",
    );
    const rows = old.query("SELECT * FROM journal ORDER BY id").all();
    old.close();

    const db = openState(dir.path);
    expect(
      (db.query("SELECT sql FROM sqlite_master WHERE name = 'journal'").get() as { sql: string }).sql,
    ).not.toContain("AUTOINCREMENT");
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'journal_rowid'").all()).toEqual([]);
    // (Later steps add the columns of a served caller, empty on these rows.)
    expect(db.query("SELECT * FROM journal ORDER BY id").all()).toEqual(
      rows.map((r) => ({ ...(r as object), caller_sub: null, caller_client: null })),
    );
    expect(lastActions(db, 1).map((r) => [r.id, r.tool, r.status])).toEqual([[301, "bash", "indeterminate"]]);
    // New rows continue after the last id; a created resource still points at its call's row.
    const j = callJournal(() => db, selfMark);
    j.started(row({ tool: "plan" }));
    expect(j.rowId()).toBe(302);
    j.finished(row({ tool: "plan" }));
    expect(db.query("SELECT tool FROM journal WHERE id = (SELECT journal_id FROM created_resources)").get()).toEqual({
      tool: "t5",
    });
    db.close();
  });
});

describe("a served caller's rows", () => {
  test("carry its subject and client; the window keeps one caller's with a filter; other rows have no caller fields", async () => {
    await using dir = tempDir();
    const db = openState(dir.path);
    callJournal(() => db, selfMark).finished(
      row({ tool: "file_read", caller_sub: "alice", caller_client: "team-app" }),
    );
    callJournal(() => db, selfMark).finished(row({ tool: "file_find" }));
    const j = callJournal(() => db, selfMark);
    j.started(row({ tool: "bash", status: "started", caller_sub: "ci-bot", caller_client: "ci-bot" }));
    j.finished(row({ tool: "bash" }));
    expect(lastActions(db, 10).map((r) => [r.tool, r.caller_sub, r.caller_client, "caller_sub" in r])).toEqual([
      ["file_read", "alice", "team-app", true],
      ["file_find", undefined, undefined, false],
      ["bash", "ci-bot", "ci-bot", true],
    ]);
    expect(lastActions(db, 10, undefined, { callers: ["alice"] }).map((r) => r.tool)).toEqual(["file_read"]);
    expect(lastActions(db, 10, undefined, { callers: ["ci-bot"] }).map((r) => r.tool)).toEqual(["bash"]);
    expect(lastActions(db, 10, undefined, { callers: ["team-app"] }).map((r) => r.tool)).toEqual(["file_read"]);
    expect(lastActions(db, 10, undefined, { callers: ["nobody"] })).toEqual([]);
    db.close();
  });
});

describe("a task child's journal", () => {
  test("is filed under the parent call, in order; a child call never finished stays indeterminate", async () => {
    await using dir = tempDir();
    const db = openState(join(dir.path, "parent"));
    const child = openState(join(dir.path, "child"));
    const j = callJournal(() => db, selfMark);
    j.started(row({ tool: "task" }));
    callJournal(() => child, selfMark).finished(row({ tool: "file_read", effect: "read" }));
    // Its process mark is one no process has: killed mid-call.
    callJournal(
      () => child,
      () => ({ pid: 2 ** 22 + 1, start: 1 }),
    ).started(row({ tool: "file_edit" }));
    child.close();
    expect(adoptChildState(db, join(dir.path, "child"), j.rowId()!)).toBe(2);
    expect(adoptChildState(db, join(dir.path, "none"), j.rowId()!)).toBe(0);
    j.finished(row({ tool: "task" }));
    expect(lastActions(db, 10).map((r) => [r.id, r.tool, r.status, r.parent])).toEqual([
      [1, "task", "success", null],
      [2, "file_read", "success", 1],
      [3, "file_edit", "indeterminate", 1],
    ]);
    db.close();
  });
});
