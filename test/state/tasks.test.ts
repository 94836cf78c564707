// The task rows against a real SQLite file: the write scope, unique prefixes and lanes, lost
// detection journaled once, the final write only once, the log cap, prune.
import { describe, expect, test } from "bun:test";
import { openState } from "../../src/state/db.ts";
import {
  claimTask,
  recordTrees,
  createTask,
  findTask,
  finishTask,
  listTasks,
  pruneTasks,
  requestCancel,
  UNCLAIMED_MS,
  type NewTask,
} from "../../src/state/tasks.ts";
import {
  appendLog,
  appendLogs,
  dropLogs,
  LOG_CHUNKS_CAP,
  LOG_CHUNK_CHARS,
  readLogs,
} from "../../src/state/task-logs.ts";
import { tempDir } from "../helpers.ts";

const task = (over: Partial<NewTask> = {}): NewTask => ({
  kind: "tool.call",
  owner: "default",
  source_tool: "file_read",
  args_preview: "{}",
  write_scope: null,
  request: "{}",
  now: 1_000,
  ...over,
});
const alive = { now: () => 2_000, running: () => true };
const dead = { now: () => 2_000, running: () => false };
const created = (r: ReturnType<typeof createTask>) => {
  if (!r.ok) throw new Error(r.message);
  return r.id;
};
const journal = (db: ReturnType<typeof openState>) =>
  db.query("SELECT event, status, error_code FROM journal ORDER BY id").all();

describe("task rows", () => {
  test("a busy write scope is refused naming its holder; a lost holder frees it", async () => {
    await using dir = tempDir();
    const db = openState(dir.path);
    const a = created(createTask(db, task({ write_scope: "repo" }), alive));
    claimTask(db, a, { pid: 1, start: 1 }, 1_500);
    const b = createTask(db, task({ write_scope: "repo" }), alive);
    expect(b).toMatchObject({ ok: false, code: "task.write_scope_busy", holder: a });
    expect(createTask(db, task({ write_scope: "repo" }), dead).ok).toBe(true);
    expect(findTask(db, a, "default", alive)).toMatchObject({
      ok: true,
      row: { status: "lost", exit_reason: "supervisor.gone" },
    });
    db.close();
  });

  test("unique prefixes; another lane's id is missing; ambiguity is said", async () => {
    await using dir = tempDir();
    const db = openState(dir.path);
    const id = created(createTask(db, task({ owner: "alpha" }), alive));
    expect(findTask(db, id.slice(0, 3), "alpha", alive)).toMatchObject({ ok: true, row: { id } });
    const other = findTask(db, id, "beta", alive);
    const none = findTask(db, "0000000000000000", "beta", alive);
    expect(other.ok || none.ok).toBe(false);
    expect((other as { code: string }).code).toBe((none as { code: string }).code);
    expect(findTask(db, "not hex", "alpha", alive)).toMatchObject({ ok: false, code: "task.not_found" });
    for (let i = 0; i < 40; i++) createTask(db, task({ owner: "alpha" }), alive);
    const prefix = listTasks(db, "alpha", 100, alive).map((r) => r.id[0]!);
    const dup = prefix.find((c, i) => prefix.indexOf(c) !== i)!;
    expect(findTask(db, dup, "alpha", alive)).toMatchObject({ ok: false, code: "task.ambiguous" });
    db.close();
  });

  test("lost is journaled once; the final write happens once; an unclaimed task is lost after a while", async () => {
    await using dir = tempDir();
    const db = openState(dir.path);
    const id = created(createTask(db, task(), alive));
    claimTask(db, id, { pid: 1, start: 1 }, 1_500);
    expect(findTask(db, id, "default", dead)).toMatchObject({ ok: true, row: { status: "lost" } });
    expect(findTask(db, id, "default", dead)).toMatchObject({ ok: true, row: { status: "lost" } });
    expect(
      finishTask(db, id, { status: "succeeded", summary: null, exit_reason: "success", result: null }, 3_000),
    ).toBe(false);
    expect(journal(db)).toEqual([
      { event: "task_started", status: "started", error_code: null },
      { event: "task_finished", status: "lost", error_code: "supervisor.gone" },
    ]);
    const queued = created(createTask(db, task(), alive));
    expect(findTask(db, queued, "default", { now: () => 1_000 + UNCLAIMED_MS - 1 })).toMatchObject({
      ok: true,
      row: { status: "queued" },
    });
    expect(findTask(db, queued, "default", { now: () => 1_000 + UNCLAIMED_MS + 1 })).toMatchObject({
      ok: true,
      row: { status: "lost", exit_reason: "supervisor.never_started" },
    });
    expect(requestCancel(db, queued)).toBe(false);
    db.close();
  });

  test("the log keeps the newest chunks, counts the dropped ones; prune removes ended tasks only", async () => {
    await using dir = tempDir();
    const db = openState(dir.path);
    const id = created(createTask(db, task(), alive));
    appendLog(db, id, "stdout", `${"x".repeat(LOG_CHUNK_CHARS * (LOG_CHUNKS_CAP + 4))}end`);
    const chunks = readLogs(db, id);
    expect(chunks.length).toBe(LOG_CHUNKS_CAP);
    expect(chunks.at(-1)!.text).toBe("end");
    expect(findTask(db, id, "default", alive)).toMatchObject({ ok: true, row: { log_dropped: 5 } });
    const active = created(createTask(db, task(), alive));
    finishTask(db, id, { status: "succeeded", summary: null, exit_reason: "success", result: null }, 3_000);
    expect(pruneTasks(db, 4_000, "default")).toBe(1);
    expect(readLogs(db, id)).toEqual([]);
    expect(listTasks(db, "default", 10, alive).map((r) => r.id)).toEqual([active]);
    db.close();
  });

  test("a batch is written in order with what the batcher dropped; a rejected result's log goes, counted", async () => {
    await using dir = tempDir();
    const db = openState(dir.path);
    const id = created(createTask(db, task(), alive));
    appendLogs(
      db,
      id,
      [
        { stream: "stdout", text: "a" },
        { stream: "stderr", text: "b" },
      ],
      3,
    );
    appendLogs(db, id, [], 0);
    expect(readLogs(db, id)).toEqual([
      { seq: 1, stream: "stdout", text: "a" },
      { seq: 2, stream: "stderr", text: "b" },
    ]);
    dropLogs(db, id);
    expect(readLogs(db, id)).toEqual([]);
    expect(findTask(db, id, "default", alive)).toMatchObject({ ok: true, row: { log_dropped: 5 } });
    db.close();
  });

  test("a gone supervisor's recorded trees are ended before the task turns lost; a final row keeps none", async () => {
    await using dir = tempDir();
    const db = openState(dir.path);
    const id = created(createTask(db, task(), alive));
    claimTask(db, id, { pid: 1, start: 1 }, 1_500);
    recordTrees(db, id, [
      { pid: 41, start: 7 },
      { pid: 42, start: 8 },
    ]);
    const ended: unknown[] = [];
    expect(findTask(db, id, "default", { ...alive, endTree: (m) => void ended.push(m) })).toMatchObject({
      ok: true,
      row: { status: "running" },
    });
    expect(ended).toEqual([]);
    expect(findTask(db, id, "default", { ...dead, endTree: (m) => void ended.push(m) })).toMatchObject({
      ok: true,
      row: { status: "lost", trees: null },
    });
    expect(ended).toEqual([
      { pid: 41, start: 7 },
      { pid: 42, start: 8 },
    ]);
    db.close();
  });
});
