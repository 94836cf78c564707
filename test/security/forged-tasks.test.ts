// A row of the state database is not proof. Forged task rows (a supervisor that is
// gone, call trees naming an unrelated process with its start time right, with or without a tag)
// made `toolgate tasks list` kill that process; a process is signalled only when its pid, start
// time and the task's mark in its own environment (which only the supervisor's launcher sets, and
// only this user can read) all match. The rows still turn lost. In a cloned checkout the forged
// database is not even opened (test/security/state-folder.test.ts).
import { beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const stat = (pid: number) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
const alive = (pid: number) => existsSync(`/proc/${pid}`) && stat(pid)[0] !== "Z";
/** Field 22 of /proc/PID/stat (the 20th after the command's closing parenthesis): start time in ticks. */
const startOf = (pid: number) => Number(stat(pid)[19]);
/** Beyond the largest pid_max (2^22): no process ever has it, so the forged supervisor reads as gone. */
const GONE = 2 ** 22 + 1;

function forge(db: Database, id: string, trees: unknown): void {
  db.query(
    `INSERT INTO tasks (id, kind, owner, source_tool, args_preview, status, created_ms, started_ms, pid, pid_start, trees)
     VALUES (?, 'terminal.exec', 'default', 'bash', '{}', 'running', 1, 1, ?, 1, ?)`,
  ).run(id, GONE, JSON.stringify(trees));
}

describe("forged task rows in toolgate's own database", () => {
  test("naming an unrelated process (pid and start time right; no tag, a guessed tag, no start): nothing is signalled, the rows turn lost", async () => {
    await using ws = tempDir();
    // toolgate's own state folder and database, then rows nobody's supervisor wrote.
    expect((await run(["call", "plan"], { cwd: ws.path })).code).toBe(0);
    // A session leader, as a task's child is (the launcher starts each with setsid).
    const victim = Bun.spawn(["sleep", "1000"], { detached: true, stdout: "ignore", stderr: "ignore" });
    const member = Bun.spawn(["sleep", "1001"], { stdout: "ignore", stderr: "ignore" }); // of this test's session
    try {
      const start = startOf(victim.pid);
      const db = new Database(join(ws.path, ".toolgate", "toolgate.db"));
      forge(db, "a000000000000001", [{ pid: victim.pid, start }]);
      forge(db, "a000000000000002", [{ pid: victim.pid, start, tag: "0".repeat(32) }]);
      forge(db, "a000000000000003", [{ pid: victim.pid, start: null }]);
      forge(db, "a000000000000004", [
        { pid: member.pid, start: startOf(member.pid), tag: "1".repeat(32) },
        { pid: -1, start: 0, tag: "2".repeat(32) },
      ]);
      forge(db, "a000000000000005", "not a list");
      db.close();

      const list = await run(["tasks", "list", "--json"], { cwd: ws.path });
      const st = await run(["tasks", "status", "a000000000000002"], { cwd: ws.path });
      const model = await run(["call", "task_status", '{"task_id":"a000000000000001"}'], { cwd: ws.path });
      // Today the first read killed the victim's whole session.
      expect([alive(victim.pid), alive(member.pid)]).toEqual([true, true]);
      expect(list.code).toBe(0);
      expect(
        list.stdout
          .trim()
          .split("\n")
          .map((l) => [JSON.parse(l).id, JSON.parse(l).status]),
      ).toEqual([
        ["a000000000000001", "lost"],
        ["a000000000000002", "lost"],
        ["a000000000000003", "lost"],
        ["a000000000000004", "lost"],
        ["a000000000000005", "lost"],
      ]);
      expect([st.code, json(st).exit_reason]).toEqual([0, "supervisor.gone"]);
      expect([model.code, json(model).payload.status]).toEqual([0, "lost"]);
    } finally {
      victim.kill("SIGKILL");
      member.kill("SIGKILL");
    }
  });
});

describe("forged task rows in a cloned checkout's database", () => {
  test("the database is never opened: exit 5, the process named in it untouched", async () => {
    await using src = tempDir();
    await using ws = tempDir();
    expect((await run(["call", "plan"], { cwd: src.path })).code).toBe(0);
    const victim = Bun.spawn(["sleep", "1000"], { detached: true, stdout: "ignore", stderr: "ignore" });
    try {
      const db = new Database(join(src.path, ".toolgate", "toolgate.db"));
      forge(db, "b000000000000001", [{ pid: victim.pid, start: startOf(victim.pid) }]);
      db.run("PRAGMA wal_checkpoint(TRUNCATE)");
      db.close();
      // A clone brings the files, not the folder toolgate made.
      Bun.spawnSync(["cp", "-r", join(src.path, ".toolgate"), join(ws.path, ".toolgate")]);
      const r = await run(["tasks", "list"], { cwd: ws.path });
      expect(alive(victim.pid)).toBe(true);
      expect([r.code, r.stdout]).toEqual([5, ""]);
      expect(r.stderr).toContain("was not made by toolgate here");
    } finally {
      victim.kill("SIGKILL");
    }
  });
});
