// End to end: background tasks through dist/toolgate. The caller's whole process group dies while
// its task runs on; a killed supervisor (or a reused pid) reads as lost; cancel under heavy output
// leaves no process; 50 callers at once; write scopes; lanes; wait's exit codes; logs --follow; a
// crashing MCP server (indeterminate) and a leaking one (the boundary's object in every view).
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, json, run as runBin, tempDir, type RunResult } from "../helpers.ts";
import { waitFor } from "../support/wait.ts";

const STATE = mkdtempSync(join(tmpdir(), "toolgate-tasks-state-"));
afterAll(() => rmSync(STATE, { recursive: true, force: true }));
const run: typeof runBin = (args, opts) => runBin(args, { ...opts, env: { XDG_STATE_HOME: STATE, ...opts.env } });
const BASH = ["--allow-run", "--approve", "bash"];
/** Runs until the test writes `go` in the workspace (at most 30 s): still running when looked at, on a busy machine too. */
const UNTIL_GO = "i=0; while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done";

const alive = (pid: number) =>
  existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z");
const lines = (r: RunResult) =>
  r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

async function background(cwd: string, command: string, extra: string[] = []): Promise<string> {
  const r = await run(["call", "bash", JSON.stringify({ command }), "--background", ...BASH, ...extra], { cwd });
  expect(r.code).toBe(0);
  const out = json(r);
  expect(Object.keys(out)).toEqual(["task_id", "status"]);
  expect(out.status).toBe("queued");
  return out.task_id as string;
}

const status = async (cwd: string, id: string, extra: string[] = []) =>
  json(await run(["tasks", "status", id, ...extra], { cwd }));
/** Processes whose command line holds `marker` (the test's own, never another's). */
const withMarker = (marker: string) =>
  readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(marker) && alive(Number(p));
      } catch {
        return false;
      }
    });

describe("call --background", () => {
  test("the caller's whole process group is killed while the task runs on and completes", async () => {
    await using dir = tempDir();
    const marker = join(dir.path, "done.txt");
    const args = JSON.stringify({ command: `sleep 1; echo finished > ${marker}` });
    // The caller: a shell in a group of its own that starts the task and then lingers.
    const caller = Bun.spawn(
      ["/bin/sh", "-c", `'${BIN}' call bash '${args}' --background --allow-run --approve bash; exec sleep 60`],
      {
        cwd: dir.path,
        env: { PATH: "/usr/bin:/bin", HOME: dir.path, CI: "true", XDG_STATE_HOME: STATE },
        stdout: "pipe",
        detached: true,
      },
    );
    const reader = caller.stdout.getReader();
    let text = "";
    while (!text.includes("\n")) text += new TextDecoder().decode((await reader.read()).value);
    const id = JSON.parse(text).task_id as string;
    process.kill(-caller.pid, "SIGKILL");
    await caller.exited;
    const w = await run(["tasks", "wait", id], { cwd: dir.path });
    expect(w.code).toBe(0);
    expect(json(w).status).toBe("succeeded");
    expect(readFileSync(marker, "utf8")).toBe("finished\n");
    const st = await status(dir.path, id);
    expect(st.kind).toBe("terminal.exec");
    expect(st.owner).toBe("default");
    // The journal: the task's start and end beside the call's own row.
    const log = lines(await run(["log", "--json"], { cwd: dir.path }));
    expect(log.map((x) => [x.event, x.status])).toEqual([
      ["task_started", "started"],
      ["tool_finished", "success"],
      ["task_finished", "succeeded"],
    ]);
  });

  test("a denial is exit 4 in the foreground and starts no task", async () => {
    await using dir = tempDir();
    const r = await run(["call", "bash", '{"command":"true"}', "--background", "--allow-run"], { cwd: dir.path });
    expect(r.code).toBe(4);
    expect(r.stdout).toContain("approval.required");
    expect((await run(["tasks", "list", "--json"], { cwd: dir.path })).stdout).toBe("");
  });

  test("--write-scope without --background is a usage error", async () => {
    await using dir = tempDir();
    const r = await run(["call", "bash", '{"command":"true"}', "--write-scope", "x", ...BASH], { cwd: dir.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--write-scope goes with --background");
  });

  test("a second active task with the same write scope is refused, naming the holder", async () => {
    await using dir = tempDir();
    const first = await background(dir.path, UNTIL_GO, ["--write-scope", "repo"]);
    const second = await run(["call", "bash", '{"command":"true"}', "--background", "--write-scope", "repo", ...BASH], {
      cwd: dir.path,
    });
    expect(second.code).toBe(1);
    expect(json(second).error_code).toBe("task.write_scope_busy");
    expect(json(second).message).toContain(first);
    // Another scope is free; once the holder ends, the scope is too.
    await background(dir.path, "true", ["--write-scope", "other"]);
    writeFileSync(join(dir.path, "go"), "");
    expect((await run(["tasks", "wait", first], { cwd: dir.path })).code).toBe(0);
    await background(dir.path, "true", ["--write-scope", "repo"]);
  });
});

describe("tasks", () => {
  test("wait exits with the task's code, and 124 when the timeout passes first; ids abbreviate", async () => {
    await using dir = tempDir();
    const failing = await background(dir.path, "exit 3");
    const w = await run(["tasks", "wait", failing.slice(0, 6)], { cwd: dir.path });
    expect(w.code).toBe(1);
    expect(json(w)).toMatchObject({ id: failing, status: "failed", exit_reason: "bash.exit" });
    const slow = await background(dir.path, UNTIL_GO);
    const t = await run(["tasks", "wait", slow, "--timeout", "0.2"], { cwd: dir.path });
    expect(t.code).toBe(124);
    expect(json(t).status).toBe("running");
    writeFileSync(join(dir.path, "go"), "");
    expect((await run(["tasks", "wait", slow], { cwd: dir.path })).code).toBe(0);
    const missing = await run(["tasks", "wait", "ffffffffffffffff"], { cwd: dir.path });
    expect(missing.code).toBe(1);
  });

  test("another lane's task answers exactly like a missing id", async () => {
    await using dir = tempDir();
    const id = await background(dir.path, "true", ["--lane", "alpha"]);
    expect((await run(["tasks", "wait", id, "--lane", "alpha"], { cwd: dir.path })).code).toBe(0);
    const other = await run(["tasks", "status", id, "--lane", "beta"], { cwd: dir.path });
    const none = await run(["tasks", "status", "0123456789abcdef", "--lane", "beta"], { cwd: dir.path });
    expect([other.code, other.stdout]).toEqual([none.code, none.stdout]);
    expect(other.stderr.replace(id, "ID")).toBe(none.stderr.replace("0123456789abcdef", "ID"));
    expect(lines(await run(["tasks", "list", "--lane", "beta"], { cwd: dir.path }))).toEqual([]);
    expect(lines(await run(["tasks", "list", "--all"], { cwd: dir.path })).map((t) => [t.id, t.owner])).toEqual([
      [id, "alpha"],
    ]);
  });

  test("logs --follow prints the output and ends when the task ends", async () => {
    await using dir = tempDir();
    const id = await background(dir.path, "sleep 1; echo one; echo two >&2");
    const f = await run(["tasks", "logs", id, "--follow"], { cwd: dir.path });
    expect(f.code).toBe(0);
    expect(f.stdout).toContain("one\n");
    expect(f.stdout).toContain("two\n");
    expect((await status(dir.path, id)).status).toBe("succeeded");
  });

  test("kill -9 of a supervisor: the task is lost on the next read, journaled once", async () => {
    await using dir = tempDir();
    const id = await background(dir.path, UNTIL_GO);
    await waitFor("the task to run", async () => (await status(dir.path, id)).status === "running");
    const pid = (await status(dir.path, id)).supervisor_pid as number;
    process.kill(pid, "SIGKILL");
    await waitFor("the supervisor to be gone", () => !alive(pid));
    expect((await status(dir.path, id)).status).toBe("lost");
    expect((await run(["tasks", "wait", id], { cwd: dir.path })).code).toBe(3);
    const finished = lines(await run(["log", "--json"], { cwd: dir.path })).filter((x) => x.event === "task_finished");
    expect(finished.map((x) => [x.status, x.error_code])).toEqual([["lost", "supervisor.gone"]]);
  });

  test("a pid now naming another process (start time differs) is lost, never running", async () => {
    await using dir = tempDir();
    const id = await background(dir.path, UNTIL_GO);
    await waitFor("the task to run", async () => (await status(dir.path, id)).status === "running");
    const db = new Database(join(dir.path, ".toolgate", "toolgate.db"));
    db.run("UPDATE tasks SET pid_start = pid_start + 1 WHERE id = ?", [id]);
    db.close();
    const st = await status(dir.path, id);
    expect([st.status, st.exit_reason]).toEqual(["lost", "supervisor.gone"]);
    writeFileSync(join(dir.path, "go"), ""); // the task, still running, ends
  });

  test("cancel during heavy output ends the whole tree, then the row is final", async () => {
    await using dir = tempDir();
    const mark = `heavy-${process.pid}-${Date.now()}`;
    const id = await background(dir.path, `yes ${mark} | cat; sleep 100`);
    await waitFor(
      "the task to run and print",
      async () => (await status(dir.path, id)).status === "running" && withMarker(mark).length > 0,
    );
    const pid = (await status(dir.path, id)).supervisor_pid as number;
    const c = await run(["tasks", "cancel", id.slice(0, 8)], { cwd: dir.path });
    expect(c.code).toBe(0);
    expect(json(c)).toMatchObject({ status: "cancelled", exit_reason: "cancelled" });
    expect(json(c).ended_ms).toBeGreaterThan(0);
    expect(withMarker(mark)).toEqual([]);
    await waitFor("the supervisor to be gone", () => !alive(pid));
    // A second cancel is not an error; wait says the outcome (as call would: failed).
    expect((await run(["tasks", "cancel", id], { cwd: dir.path })).code).toBe(0);
    expect((await run(["tasks", "wait", id], { cwd: dir.path })).code).toBe(1);
  });

  test("the supervisor's own logs are 0600 artifacts; prune removes ended tasks", async () => {
    await using dir = tempDir();
    const id = await background(dir.path, "echo hi");
    expect((await run(["tasks", "wait", id], { cwd: dir.path })).code).toBe(0);
    const folder = join(dir.path, ".toolgate", "artifacts");
    const modes = readdirSync(folder).map((n) => statSync(join(folder, n)).mode & 0o777);
    expect(modes.length).toBeGreaterThanOrEqual(2);
    expect(new Set(modes)).toEqual(new Set([0o600]));
    expect((await run(["tasks", "prune", "--older-than", "0s"], { cwd: dir.path })).code).toBe(0);
    expect(lines(await run(["tasks", "list"], { cwd: dir.path }))).toEqual([]);
  });

  test("50 background tasks started at once from 50 processes all finish with their logs", async () => {
    await using dir = tempDir();
    const ids = await Promise.all(Array.from({ length: 50 }, (_, i) => background(dir.path, `echo task-${i}`)));
    expect(new Set(ids).size).toBe(50);
    const waited = await Promise.all(ids.map((id) => run(["tasks", "wait", id], { cwd: dir.path })));
    expect(waited.map((w) => w.code)).toEqual(ids.map(() => 0));
    const logs = await Promise.all(ids.map((id) => run(["tasks", "logs", id], { cwd: dir.path })));
    // Streams interleave as they came (a login shell's own stderr lines may come first).
    expect(logs.map((l, i) => l.stdout.split("\n").includes(`task-${i}`))).toEqual(ids.map(() => true));
    const all = lines(await run(["tasks", "list", "--json"], { cwd: dir.path }));
    expect(all.length).toBe(50);
    expect(new Set(all.map((t) => t.status))).toEqual(new Set(["succeeded"]));
  }, 120_000);
});

describe("background MCP calls", () => {
  const FIXTURE = join(import.meta.dir, "..", "fixtures", "las", "server.ts");
  const GRANT = ["--allow-run", "--approve", "all"];
  function lasWorkspace(dir: string) {
    const wrapper = join(dir, "las.sh");
    writeFileSync(wrapper, `#!/bin/sh\nexec /usr/bin/env -u PWD ${process.execPath} ${FIXTURE}\n`);
    writeFileSync(
      join(dir, "toolgate.json"),
      JSON.stringify({
        las: {
          enabled: true,
          command: "/bin/sh",
          entrypoint: wrapper,
          agent_id: "being-7",
          timeout_secs: 10,
          shutdown_grace_secs: 1,
        },
      }),
    );
    Bun.spawnSync([BIN, "trust"], {
      cwd: dir,
      env: { PATH: "/usr/bin:/bin", HOME: dir, XDG_STATE_HOME: STATE },
      stdout: "ignore",
      stderr: "ignore",
    });
  }

  test("a server that crashes mid-call leaves the task indeterminate (wait exits 3)", async () => {
    await using dir = tempDir();
    lasWorkspace(dir.path);
    const r = await run(["call", "echo__crash", "{}", "--background", ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(0);
    const id = json(r).task_id;
    const w = await run(["tasks", "wait", id], { cwd: dir.path });
    expect(w.code).toBe(3);
    expect(json(w)).toMatchObject({ kind: "tool.call", status: "indeterminate", exit_reason: "transport_lost" });
  });

  test("a result that leaks a secret is the boundary's fixed object in the row and every view", async () => {
    await using dir = tempDir();
    lasWorkspace(dir.path);
    const id = json(await run(["call", "echo__leak_key", "{}", "--background", ...GRANT], { cwd: dir.path })).task_id;
    const w = await run(["tasks", "wait", id], { cwd: dir.path });
    expect(w.code).toBe(1);
    expect(json(w).result).toEqual({ status: "failed", error_code: "sensitive_output_rejected" });
    const views = [
      w,
      await run(["tasks", "status", id], { cwd: dir.path }),
      await run(["tasks", "logs", id], { cwd: dir.path }),
      await run(["tasks", "list", "--json"], { cwd: dir.path }),
      await run(["log", "--json"], { cwd: dir.path }),
    ];
    for (const v of views) expect(v.stdout + v.stderr).not.toContain("sk-live-123456");
    const db = new Database(join(dir.path, ".toolgate", "toolgate.db"), { readonly: true });
    const rows =
      JSON.stringify(db.query("SELECT * FROM tasks").all()) + JSON.stringify(db.query("SELECT * FROM task_logs").all());
    db.close();
    expect(rows).not.toContain("sk-live-123456");
  });
});

describe("model task tools (call)", () => {
  test("task_list, task_status, yield_until and task_control see only this lane, bounded, cancel only", async () => {
    await using dir = tempDir();
    const id = await background(dir.path, "sleep 1; echo model-view", ["--write-scope", "w"]);
    const slow = await background(dir.path, "sleep 30");
    const y = json(
      await run(["call", "yield_until", JSON.stringify({ task_ids: [id, slow.slice(0, 8)], timeout_secs: 20 })], {
        cwd: dir.path,
      }),
    );
    expect(y.payload.timed_out).toBe(false);
    expect(y.payload.tasks.map((t: any) => [t.task_id, t.status])).toEqual([
      [id, "succeeded"],
      [slow, "running"],
    ]);
    const all = json(
      await run(["call", "yield_until", JSON.stringify({ task_ids: [slow], mode: "all", timeout_secs: 0.2 })], {
        cwd: dir.path,
      }),
    );
    expect(all.payload.timed_out).toBe(true);
    const st = json(await run(["call", "task_status", JSON.stringify({ task_id: id })], { cwd: dir.path })).payload;
    expect(Object.keys(st)).toEqual([
      "task_id",
      "kind",
      "tool",
      "status",
      "summary",
      "created_ms",
      "ended_ms",
      "result",
      "log_tail",
    ]);
    expect(st.log_tail).toContain("model-view");
    const list = json(await run(["call", "task_list"], { cwd: dir.path })).payload.tasks;
    expect(list.map((t: any) => t.task_id).sort()).toEqual([id, slow].sort());
    expect(JSON.stringify(list)).not.toContain('"w"');
    const other = await run(["call", "task_status", JSON.stringify({ task_id: id }), "--lane", "b"], { cwd: dir.path });
    expect([other.code, json(other).error_code]).toEqual([1, "task.not_found"]);
    const pause = await run(["call", "task_control", JSON.stringify({ task_id: slow, command: "pause" })], {
      cwd: dir.path,
    });
    expect([pause.code, json(pause).error_code]).toEqual([1, "task.unsupported_command"]);
    const c = json(
      await run(["call", "task_control", JSON.stringify({ task_id: slow, command: "cancel" })], { cwd: dir.path }),
    );
    expect(c.payload).toMatchObject({ task_id: slow, cancel_requested: true });
    const done = json(
      await run(["call", "yield_until", JSON.stringify({ task_ids: [slow], timeout_secs: 20 })], { cwd: dir.path }),
    );
    expect(done.payload.tasks[0].status).toBe("cancelled");
  });
});
