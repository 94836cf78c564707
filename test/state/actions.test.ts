// The journal's read side for `toolgate log`: the window filtered by tool globs, outcomes (denied
// among them), a start time and callers, and the rows that came or ended since (--follow).
import { describe, expect, test } from "bun:test";
import { openState } from "../../src/state/db.ts";
import { appendJournal, type JournalRow } from "../../src/state/journal.ts";
import { actionsSince, lastActionId, lastActions, type ActionFilter } from "../../src/state/actions.ts";
import { tempDir } from "../helpers.ts";

const row = (over: Partial<JournalRow> = {}): JournalRow => ({
  time_ms: 1000,
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

const alive = () => true;
const dead = () => false;

async function journal() {
  const dir = tempDir();
  const db = openState(dir.path);
  appendJournal(db, row({ tool: "file_read", time_ms: 1000 }));
  appendJournal(db, row({ tool: "file_read", status: "failed", error_code: "permission.denied", time_ms: 2000 }));
  appendJournal(
    db,
    row({
      tool: "bash",
      status: "failed",
      error_code: "bash.exit",
      time_ms: 3000,
      detail: JSON.stringify({ via: "session" }),
    }),
  );
  appendJournal(
    db,
    row({
      tool: "m__slow",
      status: "indeterminate",
      error_code: "deadline",
      time_ms: 4000,
      detail: JSON.stringify({ caller: "alice", via: "session" }),
    }),
  );
  appendJournal(db, row({ tool: "file_find", status: "started", time_ms: 5000, detail: "not json" }), "tool_started", {
    pid: 1,
    start: 1,
  });
  return { db, [Symbol.asyncDispose]: async () => (db.close(), await dir[Symbol.asyncDispose]()) };
}

describe("lastActions with a filter", () => {
  test.each<[string, ActionFilter, typeof alive, string[]]>([
    ["no filter: everything, oldest first", {}, alive, ["file_read", "file_read", "bash", "m__slow", "file_find"]],
    ["a tool glob", { tools: ["file_*"] }, alive, ["file_read", "file_read", "file_find"]],
    ["two tools", { tools: ["bash", "m__slow"] }, alive, ["bash", "m__slow"]],
    ["failed: denials too", { statuses: new Set(["failed"]) }, alive, ["file_read", "bash"]],
    ["denied: exit-4 codes only", { statuses: new Set(["denied"]) }, alive, ["file_read"]],
    ["running: a started row whose process runs", { statuses: new Set(["running"]) }, alive, ["file_find"]],
    [
      "indeterminate: a started row whose process is gone is one",
      { statuses: new Set(["indeterminate"]) },
      dead,
      ["m__slow", "file_find"],
    ],
    ["indeterminate, the process alive: not yet", { statuses: new Set(["indeterminate"]) }, alive, ["m__slow"]],
    ["since a time", { sinceMs: 3000 }, alive, ["bash", "m__slow", "file_find"]],
    ["a caller named in the row", { callers: ["alice"] }, alive, ["m__slow"]],
    ["a caller by how it came (session)", { callers: ["session"] }, alive, ["bash"]],
    ["every part must hold", { tools: ["file_*"], statuses: new Set(["success"]), sinceMs: 500 }, alive, ["file_read"]],
  ])("%s", async (_, filter, running, tools) => {
    await using j = await journal();
    expect(lastActions(j.db, 100, running, filter).map((r) => r.tool)).toEqual(tools);
  });

  test("the window is the last N rows that match", async () => {
    await using j = await journal();
    expect(lastActions(j.db, 1, alive, { tools: ["file_read"] }).map((r) => [r.tool, r.status])).toEqual([
      ["file_read", "failed"],
    ]);
  });
});

describe("actionsSince (--follow)", () => {
  test("rows after an id, and rows shown running before, as they are now", async () => {
    await using j = await journal();
    expect(lastActionId(j.db)).toBe(5);
    expect(actionsSince(j.db, 3, [], {}, alive).map((r) => [r.id, r.status])).toEqual([
      [4, "indeterminate"],
      [5, "running"],
    ]);
    expect(actionsSince(j.db, 5, [5], {}, dead).map((r) => [r.id, r.status])).toEqual([[5, "indeterminate"]]);
    expect(actionsSince(j.db, 5, [], {}, alive)).toEqual([]);
  });

  test("a filter holds; a running row is kept whatever the outcome asked, to be decided once it ends", async () => {
    await using j = await journal();
    expect(actionsSince(j.db, 0, [], { statuses: new Set(["denied"]) }, alive).map((r) => r.id)).toEqual([2, 5]);
  });
});
