// toolgate session end to end through dist/toolgate: start/status/stop, forwarded calls answered
// byte for byte as cold ones, nothing widens, a session per workspace, and every way it ends.
import { afterAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { BIN, run, runUnprivileged, tempDir, type RunResult } from "../helpers.ts";
import { eventually, WAIT_MS, waitFor } from "../support/wait.ts";
import { logFor, socketFor } from "../../src/session/where.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "las", "server.ts");

// The user's state folder lies outside the workspace (a session refuses to listen inside it).
const users = new Set<string>();
afterAll(() => {
  for (const p of users) rmSync(p, { recursive: true, force: true });
});
const userState = (ws: string) => (users.add(`${ws}.user`), join(`${ws}.user`, "state"));
const env = (ws: string) => ({ HOME: ws, XDG_STATE_HOME: userState(ws) });
const sessionsOf = (ws: string) => join(userState(ws), "toolgate", "sessions");
const socketOf = (ws: string) => socketFor(sessionsOf(ws), ws);

async function start(ws: string, idle = 120): Promise<{ pid: number; [Symbol.asyncDispose](): Promise<void> }> {
  const r = await run(["session", "start", "--idle-secs", String(idle)], { cwd: ws, env: env(ws) });
  expect(r.stderr).toContain("session started");
  expect(r.code).toBe(0);
  const pid = (await status(ws)).pid as number;
  return {
    pid,
    [Symbol.asyncDispose]: async () => {
      await run(["session", "stop"], { cwd: ws, env: env(ws) });
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // stopped
      }
    },
  };
}

async function status(ws: string): Promise<Record<string, any>> {
  const r = await run(["session", "status", "--json"], { cwd: ws, env: env(ws) });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

/** Running: a zombie (an orphan the test runner adopted as a subreaper and has not reaped) is not. */
const alive = (pid: number) => {
  try {
    return !/^[ZX]$/.test(readFileSync(`/proc/${pid}/stat`, "latin1").split(") ")[1]!.slice(0, 1));
  } catch {
    return false;
  }
};

const lastRows = async (ws: string, n: number) =>
  (await run(["log", "--json", "--last", String(n)], { cwd: ws, env: env(ws) })).stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

const call = (ws: string, args: string[], stdin?: string, extra: Record<string, string> = {}) =>
  run(["call", ...args], { cwd: ws, env: { ...env(ws), ...extra }, ...(stdin !== undefined ? { stdin } : {}) });

describe("toolgate session", () => {
  test("forwarded calls answer exactly as cold ones: stdout, stderr and exit code, across results and refusals", async () => {
    await using dir = tempDir();
    const ws = dir.path;
    writeFileSync(join(ws, "a.txt"), "hello\n");
    const table: [string[], string?][] = [
      [["file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"]],
      [["file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read", "--verbose"]],
      [["file_read", '{"path":"a.txt"}', "--approve", "file_read"]], // permission.denied
      [["file_read", '{"path":"a.txt"}', "--allow-read"]], // approval.required
      [["file_read", '{"path":"a.txt"}', "--allow-read", "--deny-read=a.txt", "--approve", "file_read"]],
      [["file_read", '{"path":"missing.txt"}', "--allow-read", "--approve", "file_read"]], // a tool failure
      [["file_read", '{"path":1}', "--allow-read", "--approve", "file_read"]], // invalid arguments
      [["file_read", "-", "--allow-read", "--approve", "file_read"], '{"path":"a.txt"}'], // stdin
      [["no_such_tool", "{}"]],
      [["file_read", "{not json"]], // usage, exit 2
      [["file_read", "{}", "--bogus"]],
      [["bash", '{"command":"echo out; echo err >&2; exit 3"}', "--allow-run", "--approve", "bash"]],
      [["desk", "{}", "--lane", "other"]],
    ];
    const cold: RunResult[] = [];
    for (const [args, stdin] of table) cold.push(await call(ws, args, stdin));
    await using session = await start(ws);
    const warm: RunResult[] = [];
    for (const [args, stdin] of table) warm.push(await call(ws, args, stdin));
    // What differs between any two runs: a duration, an artifact's random name.
    const norm = (r: RunResult) => ({
      code: r.code,
      stdout: r.stdout.replace(/"durationMs":\d+/g, "D").replace(/[0-9a-f]{32}\./g, "A."),
      stderr: r.stderr,
    });
    expect(warm.map(norm)).toEqual(cold.map(norm));
    expect(new Set(cold.map((r) => r.code))).toEqual(new Set([0, 1, 2, 4]));
    // Every call reached the session (usage errors included), and rows say which came through it.
    expect((await status(ws)).calls).toBe(table.length);
    const rows = await lastRows(ws, 100);
    const via = rows.map((r) => (r.detail ? (JSON.parse(r.detail).via ?? null) : null));
    expect(via.filter((v) => v === "session").length).toBe(rows.length / 2);
    expect(session.pid).toBeGreaterThan(0);
  });

  test("tools is forwarded too, and --no-session / TOOLGATE_SESSION=off run cold", async () => {
    await using dir = tempDir();
    const ws = dir.path;
    const cold = await run(["tools", "--json"], { cwd: ws, env: env(ws) });
    await using _s = await start(ws);
    const warm = await run(["tools", "--json"], { cwd: ws, env: env(ws) });
    expect(warm).toEqual(cold);
    expect((await status(ws)).calls).toBe(1);
    await run(["tools", "--json", "--no-session"], { cwd: ws, env: env(ws) });
    await run(["tools", "--json"], { cwd: ws, env: { ...env(ws), TOOLGATE_SESSION: "off" } });
    expect((await status(ws)).calls).toBe(1);
  });

  test("a session holds no grants: start refuses them, and a call with fewer flags than the last is refused", async () => {
    await using dir = tempDir();
    const ws = dir.path;
    writeFileSync(join(ws, "a.txt"), "x\n");
    const r = await run(["session", "start", "--allow-read"], { cwd: ws, env: env(ws) });
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 2,
      stderr: expect.stringContaining("a session holds no grants of its own"),
    });
    await using _s = await start(ws);
    expect((await call(ws, ["file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"])).code).toBe(0);
    const fewer = await call(ws, ["file_read", '{"path":"a.txt"}', "--approve", "file_read"]);
    expect({ code: fewer.code, error: JSON.parse(fewer.stdout).error_code }).toEqual({
      code: 4,
      error: "permission.denied",
    });
    expect((await status(ws)).calls).toBe(2);
  });

  test("two workspaces, two sessions: each serves its own", async () => {
    await using a = await tempDirWith("a.txt");
    await using b = await tempDirWith("a.txt");
    await using sa = await start(a.path);
    await using sb = await start(b.path);
    expect(sa.pid).not.toBe(sb.pid);
    for (const ws of [a.path, b.path, b.path])
      expect((await call(ws, ["file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"])).code).toBe(
        0,
      );
    expect([(await status(a.path)).calls, (await status(b.path)).calls]).toEqual([1, 2]);
    // A call in a workspace with no session of its own, under one that has: never served by the outer one.
    const inner = join(a.path, "inner");
    mkdirSync(inner);
    writeFileSync(join(inner, "toolgate.json"), "{}\n");
    writeFileSync(join(inner, "a.txt"), "inner\n");
    // A config below a state folder is used only once trusted (a sandboxed command could have planted it).
    expect((await run(["trust"], { cwd: inner, env: env(a.path) })).code).toBe(0);
    const r = await run(
      ["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read", "--verbose"],
      { cwd: inner, env: env(a.path) },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("session: the session serves another workspace or config; running cold");
    expect((await status(a.path)).calls).toBe(1);
  });

  test("a config edit ends forwarding: the next call runs cold and says so, and the session ends", async () => {
    await using dir = tempDir();
    const ws = dir.path;
    writeFileSync(join(ws, "toolgate.json"), '{"scratch": ".toolgate/scratch"}\n');
    writeFileSync(join(ws, "a.txt"), "x\n");
    await using s = await start(ws);
    const args = ["file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read", "--verbose"];
    expect((await call(ws, args)).stderr).not.toContain("running cold");
    writeFileSync(join(ws, "toolgate.json"), '{"scratch": ".toolgate/scratch2"}\n');
    const r = await call(ws, args);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      "toolgate: session: the config or toolgate.lock changed since the session started; running cold",
    );
    expect(await eventually(() => !alive(s.pid))).toBe(true);
    expect(existsSync(socketOf(ws))).toBe(false);
  });

  test("kill -9 of the session: the next call runs cold and removes the stale socket", async () => {
    await using dir = await tempDirWith("a.txt");
    const ws = dir.path;
    await using s = await start(ws);
    process.kill(s.pid, "SIGKILL");
    expect(await eventually(() => !alive(s.pid))).toBe(true);
    expect(existsSync(socketOf(ws))).toBe(true);
    const r = await call(ws, ["file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read", "--verbose"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("session: the session is gone (stale socket removed); running cold");
    expect(existsSync(socketOf(ws))).toBe(false);
  });

  test("another user is never served: the socket is 0600 in a 0700 folder", async () => {
    await using dir = await tempDirWith("a.txt");
    const ws = dir.path;
    chmodSync(ws, 0o755);
    await using _s = await start(ws);
    const st = Bun.spawnSync(["stat", "-c", "%a", sessionsOf(ws), socketOf(ws)])
      .stdout.toString()
      .trim()
      .split("\n");
    expect(st).toEqual(["700", "600"]);
    const r = await runUnprivileged(
      ["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"],
      { cwd: ws },
    );
    expect(r.code).not.toBe(0);
    expect((await status(ws)).calls).toBe(0);
  });

  test("another user who reaches the socket anyway is refused by its peer credentials, before its request is read", async () => {
    await using dir = await tempDirWith("a.txt");
    const ws = dir.path;
    chmodSync(ws, 0o755);
    await using _s = await start(ws);
    // Opened up by hand: only SO_PEERCRED stands between this client and the session now.
    const open = [`${ws}.user`, userState(ws), join(userState(ws), "toolgate"), sessionsOf(ws)];
    for (const d of open) chmodSync(d, 0o755);
    chmodSync(socketOf(ws), 0o666);
    await using bin = tempDir("toolgate-raw-");
    chmodSync(bin.path, 0o755);
    const client = join(bin.path, "client.ts");
    // A raw client (the real one looks only for sockets its own user owns): it prints what it is answered.
    writeFileSync(
      client,
      `let got = "";
await new Promise((done) => Bun.connect({ unix: ${JSON.stringify(socketOf(ws))}, socket: {
  open: (s) => void s.write(JSON.stringify({ t: "status", v: "x" }) + "\\n"),
  data: (_s, d) => void (got += new TextDecoder().decode(d)),
  close: () => done(undefined), error: () => done(undefined),
} }).catch((e) => { got = "connect failed: " + e.message; done(undefined); }));
process.stdout.write(got);
`,
    );
    chmodSync(client, 0o644);
    const drop = process.getuid?.() === 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
    const p = Bun.spawnSync([...drop, process.execPath, client], {
      cwd: bin.path,
      env: { PATH: "/usr/bin:/bin", HOME: bin.path },
      timeout: 20_000,
    });
    expect(p.stdout.toString().startsWith("{") ? JSON.parse(p.stdout.toString()) : p.stdout.toString()).toEqual({
      t: "c",
      why: `the session serves uid ${process.getuid?.()}, not 65534`,
    });
    // The same client as the session's own user is answered.
    const own = Bun.spawnSync([process.execPath, client], {
      cwd: bin.path,
      env: { PATH: "/usr/bin:/bin", HOME: bin.path },
      timeout: 20_000,
    });
    expect(JSON.parse(own.stdout.toString())).toMatchObject({ t: "s", status: { pid: expect.any(Number), calls: 0 } });
    // Closed again, so that session stop finds it (a client trusts only a folder no one else can enter).
    for (const d of open) chmodSync(d, 0o700);
  });

  test("start refuses a sessions folder inside the workspace, a link in its place, or one others may enter", async () => {
    await using dir = await tempDirWith("a.txt");
    const ws = dir.path;
    const inside = await run(["session", "start"], { cwd: ws, env: { HOME: ws } });
    expect({ code: inside.code, stderr: inside.stderr }).toEqual({
      code: 5,
      stderr: `toolgate: the session's socket would lie in ${join(ws, ".local", "state", "toolgate", "sessions")}, inside the workspace ${ws}, where a command the session runs could reach it\n  hint: set XDG_RUNTIME_DIR (or XDG_STATE_HOME) to a folder outside the workspace\n`,
    });
    await using other = tempDir("toolgate-run-");
    const folder = join(other.path, "toolgate", "sessions");
    mkdirSync(join(other.path, "toolgate"), { mode: 0o700 });
    mkdirSync(join(other.path, "elsewhere"), { mode: 0o700 });
    symlinkSync(join(other.path, "elsewhere"), folder);
    const linked = await run(["session", "start"], { cwd: ws, env: { HOME: ws, XDG_RUNTIME_DIR: other.path } });
    expect({ code: linked.code, stderr: linked.stderr.split("\n")[0] }).toEqual({
      code: 5,
      stderr: `toolgate: cannot keep a session's socket in ${folder}: it is a symbolic link`,
    });
    rmSync(folder);
    mkdirSync(folder, { mode: 0o700 });
    chmodSync(folder, 0o750);
    const open = await run(["session", "start"], { cwd: ws, env: { HOME: ws, XDG_RUNTIME_DIR: other.path } });
    expect({ code: open.code, stderr: open.stderr.split("\n")[0] }).toEqual({
      code: 5,
      stderr: `toolgate: cannot keep a session's socket in ${folder}: other users can enter it (mode 0750)`,
    });
    expect(readdirSync(folder)).toEqual([]);
  });

  test("the idle timeout ends the session, and nothing is left running", async () => {
    await using dir = await tempDirWith("a.txt");
    const ws = dir.path;
    const s = await start(ws, 1);
    expect(await eventually(() => !alive(s.pid))).toBe(true);
    expect(existsSync(socketOf(ws))).toBe(false);
    expect(readFileSync(logFor(socketOf(ws)), "utf8")).toBe("toolgate: session stopping: idle for 1 s\n");
    const st = await run(["session", "status"], { cwd: ws, env: env(ws) });
    expect({ code: st.code, stderr: st.stderr }).toEqual({
      code: 1,
      stderr: "toolgate: no session serves this workspace\n",
    });
  });

  test("Ctrl-C of a forwarded bash call cancels that call in the session, ends its tree, and exits 130 as a cold call does", async () => {
    await using dir = tempDir();
    const ws = dir.path;
    await using _s = await start(ws);
    const marker = `${4000 + Math.floor(Math.random() * 1000)}.5`;
    const proc = Bun.spawn(
      [
        BIN,
        "call",
        "bash",
        JSON.stringify({ command: `sleep ${marker} & sleep ${marker}; wait` }),
        "--allow-run",
        "--approve",
        "bash",
      ],
      {
        cwd: ws,
        env: { PATH: "/usr/bin:/bin", CI: "true", ...env(ws) },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const sleepers = () =>
      readdirSync("/proc").filter(
        (p) => /^\d+$/.test(p) && safeRead(`/proc/${p}/cmdline`).includes(`sleep\0${marker}`),
      );
    expect(await eventually(() => sleepers().length === 2)).toBe(true);
    proc.kill("SIGINT");
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    const e = JSON.parse(out);
    expect({ code, status: e.status, error: e.error_code, signal: e.details.signal }).toEqual({
      code: 130,
      status: "failed",
      error: "cancelled",
      signal: "SIGINT",
    });
    expect(await eventually(() => sleepers().length === 0)).toBe(true);
    expect((await status(ws)).in_flight).toBe(0);
    const [row] = await lastRows(ws, 1);
    expect({ tool: row.tool, status: row.status, error_code: row.error_code, detail: JSON.parse(row.detail) }).toEqual({
      tool: "bash",
      status: "failed",
      error_code: "cancelled",
      detail: { via: "session", signal: "SIGINT" },
    });
  });

  test("the journal stays open across forwarded calls, and one removed meanwhile is made anew for the next call's row", async () => {
    await using dir = await tempDirWith("a.txt");
    const ws = dir.path;
    await using s = await start(ws);
    const read = () => call(ws, ["file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"]);
    const journal = join(ws, ".toolgate", "toolgate.db");
    // The session's open descriptors on the journal file (by its path; " (deleted)" once removed).
    const held = () =>
      readdirSync(`/proc/${s.pid}/fd`)
        .map((fd) => safeLink(`/proc/${s.pid}/fd/${fd}`))
        .filter((t) => t === journal || t === `${journal} (deleted)`);
    expect((await read()).code).toBe(0);
    expect((await read()).code).toBe(0);
    expect(held()).toEqual([journal]);
    for (const f of ["", "-wal", "-shm"]) rmSync(`${journal}${f}`, { force: true });
    expect((await read()).code).toBe(0);
    const rows = await lastRows(ws, 10);
    expect(rows.map((r) => [r.tool, r.status, JSON.parse(r.detail).via])).toEqual([
      ["file_read", "success", "session"],
    ]);
    expect(held().filter((t) => t === journal)).toEqual([journal]);
  });

  test("a state folder removed while the session runs is made anew (marked) for the next call, not refused", async () => {
    await using dir = await tempDirWith("a.txt");
    const ws = dir.path;
    await using _s = await start(ws);
    const read = () => call(ws, ["file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"]);
    expect((await read()).code).toBe(0);
    rmSync(join(ws, ".toolgate"), { recursive: true, force: true });
    const again = await read();
    expect([again.code, again.stderr]).toEqual([0, ""]);
    expect(existsSync(join(ws, ".toolgate", "made-by-toolgate"))).toBe(true);
    expect((await lastRows(ws, 10)).map((r) => [r.tool, r.status])).toEqual([["file_read", "success"]]);
  });

  test("once its calls stop, the session collects its garbage once, not again until more calls come", async () => {
    await using dir = await tempDirWith("a.txt");
    const ws = dir.path;
    await using _s = await start(ws);
    expect((await status(ws)).idle_collections).toBe(0);
    for (let i = 0; i < 3; i++)
      expect((await call(ws, ["file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"])).code).toBe(
        0,
      );
    let st = await status(ws);
    await waitFor("an idle collection", async () => (st = await status(ws)).idle_collections !== 0, WAIT_MS, 100);
    expect(st.idle_collections).toBe(1);
    // No calls since: the next ticks (one a second) find nothing new to collect.
    await Bun.sleep(2_200);
    expect((await status(ws)).idle_collections).toBe(1);
    expect((await call(ws, ["file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"])).code).toBe(0);
    st = await status(ws);
    await waitFor("another idle collection", async () => (st = await status(ws)).idle_collections !== 1, WAIT_MS, 100);
    expect(st.idle_collections).toBe(2);
  });

  test("the session collects its garbage between calls after its 1st, 2nd, 4th, 8th... call, not after every call", async () => {
    await using dir = await tempDirWith("a.txt");
    const ws = dir.path;
    writeFileSync(
      join(ws, "toolgate.json"),
      JSON.stringify({ mcpServers: { a: { command: process.execPath, args: [FIXTURE] } } }),
    );
    await using _s = await start(ws, 600);
    expect((await status(ws)).early_collections).toBe(0);
    expect((await call(ws, ["a__echo__echo", '{"message":"hi"}', "--allow-run", "--approve", "all"])).code).toBe(0);
    for (let i = 0; i < 8; i++)
      expect((await call(ws, ["file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"])).code).toBe(
        0,
      );
    // Nine calls: after the 1st, 2nd, 4th and 8th (each once the answer went out).
    let st = await status(ws);
    await waitFor("four early collections", async () => (st = await status(ws)).early_collections >= 4, WAIT_MS, 50);
    expect([st.calls, st.early_collections]).toEqual([9, 4]);
  });

  test("8 parallel clients x 50 calls: 400 journal rows, each via the session", async () => {
    await using dir = await tempDirWith("a.txt");
    const ws = dir.path;
    await using _s = await start(ws);
    const client = async () => {
      const codes: number[] = [];
      for (let i = 0; i < 50; i++)
        codes.push((await call(ws, ["file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"])).code);
      return codes;
    };
    const codes = (await Promise.all(Array.from({ length: 8 }, client))).flat();
    expect(codes.filter((c) => c === 0).length).toBe(400);
    const rows = await lastRows(ws, 1000);
    expect(rows.filter((r) => r.status === "success" && JSON.parse(r.detail).via === "session").length).toBe(400);
    expect((await status(ws)).calls).toBe(400);
  }, 180_000);
});

describe("toolgate session with an MCP server", () => {
  test("the server is started once and kept; fewer flags are refused although it runs; a crash is indeterminate and the next use starts it again; stop ends it", async () => {
    await using dir = tempDir();
    const ws = dir.path;
    const pidFile = join(ws, "a.pid");
    writeFileSync(
      join(ws, "toolgate.json"),
      JSON.stringify({ mcpServers: { a: { command: process.execPath, args: [FIXTURE, `--pid-out=${pidFile}`] } } }),
    );
    const echo = ["a__echo__echo", '{"message":"hi"}', "--allow-run", "--approve", "all"];
    const table = [
      echo,
      ["a__echo__echo", '{"message":"hi"}', "--approve", "all"],
      ["a__echo__crash", "{}", "--allow-run", "--approve", "all"],
    ];
    const cold: RunResult[] = [];
    for (const args of table) cold.push(await call(ws, args));
    await using s = await start(ws);
    expect((await call(ws, echo)).code).toBe(0);
    const first = Number(readFileSync(pidFile, "utf8"));
    const warm: RunResult[] = [];
    for (const args of table) warm.push(await call(ws, args));
    expect(warm).toEqual(cold);
    expect(cold.map((r) => [r.code, JSON.parse(r.stdout).error_code ?? null])).toEqual([
      [0, null],
      [4, "permission.denied"],
      [3, "transport_lost"],
    ]);
    // The crash ended the child it had kept: the next use starts another.
    expect(await eventually(() => !alive(first))).toBe(true);
    expect((await status(ws)).servers).toEqual([]);
    expect((await call(ws, echo)).code).toBe(0);
    const second = Number(readFileSync(pidFile, "utf8"));
    expect(second).not.toBe(first);
    expect((await status(ws)).servers).toEqual([{ name: "a", pid: expect.any(Number) }]);
    expect((await call(ws, echo)).code).toBe(0);
    expect(Number(readFileSync(pidFile, "utf8"))).toBe(second);
    await run(["session", "stop"], { cwd: ws, env: env(ws) });
    expect(await eventually(() => !alive(s.pid) && !alive(second))).toBe(true);
  });
});

function safeRead(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

async function tempDirWith(file: string) {
  const d = tempDir();
  writeFileSync(join(d.path, file), "hello\n");
  return d;
}

/** Where a /proc fd link points ("" when it is gone). */
function safeLink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}
