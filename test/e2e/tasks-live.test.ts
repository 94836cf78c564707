// A running task's output and tree through dist/toolgate: `tasks logs
// --follow` shows output while the task runs; the log cap drops the oldest chunks and counts them;
// a bound secret split across reads is in no chunk; kill -9 of a supervisor ends its call tree
// (the command's guardian), the next read makes the task lost, and nothing outside it ends; yield_until's configured cap; a server start granted at
// the terminal prompt in the foreground reaches the supervisor (and a no starts nothing).
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, json, onTty, run as runBin, tempDir } from "../helpers.ts";
import { waitFor } from "../support/wait.ts";

const STATE = mkdtempSync(join(tmpdir(), "toolgate-tasks-live-"));
afterAll(() => rmSync(STATE, { recursive: true, force: true }));
const run: typeof runBin = (args, opts) => runBin(args, { ...opts, env: { XDG_STATE_HOME: STATE, ...opts.env } });
const BASH = ["--allow-run", "--approve", "bash"];

const statOf = (pid: number) => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { state: f[0]!, sid: Number(f[3]) };
  } catch {
    return null;
  }
};
const alive = (pid: number) => {
  const s = statOf(pid);
  return s !== null && s.state !== "Z";
};
/** Live processes of session `sid`. */
const sessionOf = (sid: number) =>
  readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((p) => alive(p) && statOf(p)?.sid === sid);

async function background(cwd: string, command: string, env: Record<string, string> = {}): Promise<string> {
  const r = await run(["call", "bash", JSON.stringify({ command }), "--background", ...BASH], { cwd, env });
  expect(r.code).toBe(0);
  return json(r).task_id as string;
}
const status = async (cwd: string, id: string) => json(await run(["tasks", "status", id, "--json"], { cwd }));
const chunks = (cwd: string, id: string, stream = "stdout") => {
  const db = new Database(join(cwd, ".toolgate", "toolgate.db"), { readonly: true });
  try {
    return (
      db.query("SELECT text FROM task_logs WHERE task_id = ? AND stream = ? ORDER BY seq").all(id, stream) as {
        text: string;
      }[]
    ).map((c) => c.text);
  } finally {
    db.close();
  }
};

describe("a running task's log", () => {
  test("logs --follow shows the first line while the task still runs, and ends when it ends", async () => {
    await using dir = tempDir();
    // The task waits for a file the test writes only once the first line was seen.
    const id = await background(dir.path, "echo first-line; while [ ! -e go ]; do sleep 0.05; done; echo second-line");
    const follow = Bun.spawn([BIN, "tasks", "logs", id, "--follow"], {
      cwd: dir.path,
      env: { PATH: "/usr/bin:/bin", HOME: dir.path, XDG_STATE_HOME: STATE },
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = follow.stdout.getReader();
    let seen = "";
    await waitFor("the first line", async () => {
      const { value } = await reader.read();
      seen += new TextDecoder().decode(value ?? new Uint8Array());
      return seen.includes("first-line\n");
    });
    expect((await status(dir.path, id)).status).toBe("running");
    expect(seen).not.toContain("second-line");
    writeFileSync(join(dir.path, "go"), "");
    for (let r = await reader.read(); !r.done; r = await reader.read()) seen += new TextDecoder().decode(r.value);
    expect(await follow.exited).toBe(0);
    expect(seen.endsWith("first-line\nsecond-line\n")).toBe(true);
    expect((await status(dir.path, id)).status).toBe("succeeded");
  });

  test("past the cap the oldest chunks are dropped and counted; the newest output stays", async () => {
    await using dir = tempDir();
    const id = await background(dir.path, "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo last-line");
    expect((await run(["tasks", "wait", id], { cwd: dir.path })).code).toBe(0);
    const st = await status(dir.path, id);
    expect(st.log_dropped).toBeGreaterThan(0);
    const kept = chunks(dir.path, id);
    expect(kept.length).toBeLessThanOrEqual(256);
    expect(kept.join("").endsWith("x\nlast-line\n")).toBe(true);
    const logs = await run(["tasks", "logs", id], { cwd: dir.path });
    expect(logs.stderr).toContain(
      `(${st.log_dropped} older log chunks dropped; the whole output is in the task's artifacts)`,
    );
    expect(logs.stdout.endsWith("last-line\n")).toBe(true);
  });

  test("a call's secret printed in two pieces, a pause apart, is in no chunk", async () => {
    await using dir = tempDir();
    const TOKEN = "rail-token-5f1c2d9e-split";
    const env = { RAILS_BANK_URL: "http://127.0.0.1:9/store", RAILS_BANK_TOKEN: TOKEN };
    const id = await background(
      dir.path,
      "printf 'before rail-token-'; sleep 0.6; printf '5f1c2d9e-split after\\n'; echo done",
      env,
    );
    const w = await run(["tasks", "wait", id], { cwd: dir.path, env });
    expect(w.code).toBe(0);
    const kept = chunks(dir.path, id);
    expect(kept.join("")).toBe("before [REDACTED] after\ndone\n");
    for (const c of kept) expect(c).not.toContain("5f1c2d9e");
    expect(w.stdout).not.toContain(TOKEN);
  });
});

describe("kill -9 of a supervisor", () => {
  test("its call tree ends with it, the next read makes the task lost, and nothing outside it ends", async () => {
    await using dir = tempDir();
    // Not of the task: must survive.
    const decoy = Bun.spawn(["sleep", "1000"], { stdout: "ignore", stderr: "ignore" });
    try {
      const id = await background(dir.path, "sleep 1000 & bash -c 'sleep 1001; :' & wait");
      let leader = 0;
      await waitFor("the task's tree", () => {
        const db = new Database(join(dir.path, ".toolgate", "toolgate.db"), { readonly: true });
        const trees = (db.query("SELECT trees FROM tasks WHERE id = ?").get(id) as { trees: string | null }).trees;
        db.close();
        leader = trees ? (JSON.parse(trees)[0].pid as number) : 0;
        return leader > 0 && sessionOf(leader).length >= 4;
      });
      const tree = sessionOf(leader);
      const supervisor = (await status(dir.path, id)).supervisor_pid as number;
      expect(tree).not.toContain(supervisor);
      process.kill(supervisor, "SIGKILL");
      await waitFor("the supervisor to be gone", () => !alive(supervisor));
      // Children die with their parent: the command's guardian ends the tree with its supervisor.
      await waitFor("the call tree to end", () => tree.every((p) => !alive(p)), 5_000);
      expect(sessionOf(leader)).toEqual([]);
      const st = await status(dir.path, id);
      expect([st.status, st.exit_reason]).toEqual(["lost", "supervisor.gone"]);
      expect(alive(decoy.pid)).toBe(true);
      expect(existsSync(`/proc/${process.pid}`)).toBe(true);
    } finally {
      decoy.kill("SIGKILL");
    }
  });
});

describe("yield_until's cap (tasks.yield_cap_secs)", () => {
  test("a config with a small cap makes yield_until return at the cap, whatever timeout was asked", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "cap.json"), JSON.stringify({ tasks: { yield_cap_secs: 0.5 } }));
    const slow = await background(dir.path, "sleep 30");
    const started = performance.now();
    const y = await run(
      ["call", "yield_until", JSON.stringify({ task_ids: [slow], timeout_secs: 20 }), "--config", "cap.json"],
      { cwd: dir.path },
    );
    const took = performance.now() - started;
    expect(y.code).toBe(0);
    expect(json(y).payload).toMatchObject({
      timed_out: true,
      waited_at_most_secs: 0.5,
      tasks: [{ task_id: slow, status: "running" }],
    });
    expect(took).toBeGreaterThanOrEqual(500);
    expect(took).toBeLessThan(10_000);
    // Without the config the default cap (240 s) leaves the asked timeout as it is.
    const d = json(
      await run(["call", "yield_until", JSON.stringify({ task_ids: [slow], timeout_secs: 0.2 })], { cwd: dir.path }),
    );
    expect(d.payload).toMatchObject({ timed_out: true, waited_at_most_secs: 0.2 });
    expect((await run(["tasks", "cancel", slow], { cwd: dir.path })).code).toBe(0);
  });

  test("a cap out of bounds fails the boot (exit 5) naming the file, line and key", async () => {
    await using dir = tempDir();
    for (const [value, said] of [
      [0, "must be positive (was 0)"],
      [1000, "must be at most 290 (was 1000)"],
    ] as const) {
      writeFileSync(join(dir.path, "cap.json"), `{\n  "tasks": {\n    "yield_cap_secs": ${value}\n  }\n}\n`);
      const r = await run(["call", "yield_until", JSON.stringify({ task_ids: ["ab"] }), "--config", "cap.json"], {
        cwd: dir.path,
      });
      expect(r.code).toBe(5);
      expect(r.stderr.split("\n")[0]).toBe(
        `toolgate: ${join(dir.path, "cap.json")}:3:23: tasks.yield_cap_secs: ${said}`,
      );
    }
  });
});

describe("a server start granted at the prompt in the foreground", () => {
  const ORDINARY = join(import.meta.dir, "..", "fixtures", "mcp", "ordinary.ts");
  const workspace = (dir: string) => {
    mkdirSync(join(dir, ".git"));
    writeFileSync(
      join(dir, "toolgate.json"),
      JSON.stringify({ sandbox: "off", mcpServers: { x: { command: process.execPath, args: [ORDINARY] } } }, null, 2),
    );
  };
  const prompts = (out: string) => out.split("Allow? [y/n/A]").length - 1;

  test("a yes at the terminal is carried to the supervisor: the background call succeeds", async () => {
    await using dir = tempDir();
    workspace(dir.path);
    const t = await onTty(dir.path, ["call", "x__weather", "{}", "--approve", "all", "--background"], "y\n", {
      XDG_STATE_HOME: STATE,
    });
    expect([t.code, prompts(t.out)]).toEqual([0, 1]);
    const id = JSON.parse(t.out.trim().split("\n").at(-1)!).task_id as string;
    const w = await run(["tasks", "wait", id], { cwd: dir.path });
    expect(w.code).toBe(0);
    expect(json(w)).toMatchObject({ status: "succeeded", result: { status: "success", tool: "x__weather" } });
    // What the supervisor had was that one start: the journal shows it, and no other refusal.
    const rows = (await run(["log", "--json"], { cwd: dir.path })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.filter((r) => r.tool === "mcp.connect:x").map((r) => r.status)).not.toContain("refused");
  });

  test("a no refuses in the foreground (exit 4) and starts no task", async () => {
    await using dir = tempDir();
    workspace(dir.path);
    const t = await onTty(dir.path, ["call", "x__weather", "{}", "--approve", "all", "--background"], "n\n", {
      XDG_STATE_HOME: STATE,
    });
    expect([t.code, prompts(t.out)]).toEqual([4, 1]);
    expect(t.out).not.toContain("task_id");
    const list = await run(["tasks", "list", "--json"], { cwd: dir.path });
    expect([list.code, list.stdout]).toEqual([0, ""]);
  });
});
