// Supervision with real children (test/fixtures/mcp/mortal.ts) driven through RemoteSources in
// process: a child killed mid-call (indeterminate, never replayed), restarted with backoff,
// re-listed against the catalog (descriptor_changed), given up past the bound, and shut down
// with nothing left running, a restart in progress included.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolSource } from "../../src/catalog/catalog.ts";
import { waitUntil } from "../../src/launcher/end-tree.ts";
import type { PermissionGate } from "../../src/runtime/invoke.ts";
import type { RemoteSpec } from "../../src/servers/specs.ts";
import { RemoteSources } from "../../src/servers/sources.ts";
import type { RestartPolicy } from "../../src/servers/supervisor.ts";
import { tempDir, toolContext } from "../helpers.ts";
import { serveMcp, type HttpMcp } from "../support/http-mcp-server.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "mcp", "mortal.ts");
const FAST: RestartPolicy = { initialMs: 20, maxMs: 50, attempts: 5, stableMs: 60_000 };

const alive = (pid: number) =>
  existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z");
const lines = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : []);

function spec(dir: string, required = true): RemoteSpec {
  return {
    name: "mortal",
    origin: "mcp:mortal",
    kind: "mcp",
    required,
    network: false,
    pin: false,
    needs: [{ kind: "run", value: process.execPath }],
    transport: {
      kind: "stdio",
      argv: [
        process.execPath,
        FIXTURE,
        `--pids-out=${dir}/pids`,
        `--calls-out=${dir}/calls`,
        `--variant=${dir}/variant`,
        `--die-at-start=${dir}/die`,
      ],
      cwd: dir,
      values: {},
      secrets: {},
    },
    connectTimeoutMs: 10_000,
    timeoutMs: 10_000,
    graceMs: 2_000,
  };
}

/** RemoteSources over the fixture, loaded, with its hooks recorded: each onChange snapshots what refusedNow says of every tool. */
async function supervised(
  dir: string,
  opts: {
    required?: boolean;
    refresh?: boolean;
    policy?: RestartPolicy;
    spec?: RemoteSpec;
    now?: () => number;
    refuse?: boolean;
  } = {},
) {
  const asked: string[] = [];
  const journal: { status: string; code?: string; message?: string }[] = [];
  const permissions: PermissionGate = {
    check: (need) => {
      asked.push(`${need.kind}:${need.value}`);
      if (opts.refuse)
        return {
          ok: false,
          code: "permission.denied",
          message: `run access to "${need.value}" is not granted; run again with --allow-run`,
          flag: "--allow-run",
        };
      return { ok: true, value: need.value };
    },
  };
  const s = opts.spec ?? spec(dir, opts.required ?? true);
  const remote = new RemoteSources({
    specs: [s],
    parentEnv: {},
    cachePath: join(dir, ".toolgate", "cache.json"), // in a state folder toolgate makes, as at boot
    permissions,
    now: opts.now ?? (() => Date.now()),
    refresh: opts.refresh ?? true,
    version: "test",
    journal: (_spec, outcome) => journal.push(outcome),
  });
  const loaded = await remote.load();
  if (!loaded.ok) throw new Error(loaded.refusal.message);
  const tools = new Map<string, ToolSource>(loaded.value.map((t) => [t.name, t]));
  const events: string[] = [];
  const changes: Record<string, string>[] = [];
  const waiters: { test: () => boolean; resolve: () => void }[] = [];
  const poke = () => {
    for (const w of [...waiters]) if (w.test()) waiters.splice(waiters.indexOf(w), 1), w.resolve();
  };
  const sup = await remote.supervise(
    {
      onChange: () => {
        changes.push(Object.fromEntries([...tools.keys()].map((n) => [n, remote.refusedNow(n)?.code ?? "ok"])));
        poke();
      },
      onEvent: (line) => {
        events.push(line);
        poke();
      },
    },
    opts.policy ?? FAST,
  );
  /** Resolves once `test` holds after a hook fired (bounded: fails after 15 s). */
  const until = (what: string, t: () => boolean) =>
    t()
      ? Promise.resolve()
      : new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events)}`)),
            15_000,
          );
          waiters.push({ test: t, resolve: () => (clearTimeout(timer), resolve()) });
        });
  const call = (name: string, args: unknown = {}) => tools.get(name)!.adapter.run(args, toolContext(dir));
  const pid = async () => (await remote.connection(s)).child!.pid;
  return {
    remote,
    sup,
    spec: s,
    asked,
    journal,
    events,
    changes,
    until,
    call,
    pid,
    [Symbol.asyncDispose]: () => remote.shutdown(),
  };
}

describe("a supervised child that dies", () => {
  test("a call in flight ends indeterminate and is not replayed; the child is restarted (not asked again) and the next call works; onChange fires both ways", async () => {
    await using dir = tempDir();
    await using s = await supervised(dir.path);
    const first = await s.pid();
    const inFlight = s.call("mortal__slow");
    expect(await waitUntil(() => lines(join(dir.path, "calls")).includes("slow"), 10_000)).toBe(true);
    process.kill(first, "SIGKILL");
    expect(await inFlight).toEqual({
      ok: false,
      refusal: {
        code: "transport_lost",
        indeterminate: true,
        message:
          'slow: the connection failed mid-call (MCP server "mortal" was killed by a signal); the remote effect is unknown and the call is not replayed',
      },
    });
    await s.until("the restart", () => s.events.length >= 2);
    const second = await s.pid();
    expect(second).not.toBe(first);
    expect(s.events).toEqual([
      `MCP server "mortal" was killed by a signal; restarting in 0.02 s (restart 1 of at most 5)`,
      `MCP server "mortal" restarted (pid ${second})`,
    ]);
    expect(await s.call("mortal__echo", { message: "again" })).toEqual({
      ok: true,
      value: { content: [{ type: "text", text: "again" }] },
    });
    // The fixture saw the slow call once, then the echo: nothing was replayed.
    expect(lines(join(dir.path, "calls"))).toEqual(["slow", "echo"]);
    expect(lines(join(dir.path, "pids")).map(Number)).toEqual([first, second]);
    // Down (every tool refused while it restarts), then back.
    const down = { mortal__echo: "mcp.restarting", mortal__slow: "mcp.restarting", mortal__die: "mcp.restarting" };
    expect(s.changes).toEqual([down, { mortal__echo: "ok", mortal__slow: "ok", mortal__die: "ok" }]);
    // The start's permission was asked once; the restart ran the approved command line.
    expect(s.asked).toEqual([`run:${process.execPath}`]);
    expect(s.journal).toEqual([
      { status: "started" },
      { status: "exited", code: "mcp.exited", message: "was killed by a signal" },
      { status: "restarted" },
    ]);
    expect(alive(first)).toBe(false);
  }, 30_000);

  test("a restarted child that lists another descriptor: that tool is refused descriptor_changed, the others still run", async () => {
    await using dir = tempDir();
    await using s = await supervised(dir.path);
    writeFileSync(join(dir.path, "variant"), "v2");
    expect(await s.call("mortal__die")).toMatchObject({
      ok: false,
      refusal: { code: "transport_lost", indeterminate: true },
    });
    await s.until("the restart", () => s.events.some((e) => e.includes("restarted")));
    expect(s.events[0]).toBe(`MCP server "mortal" exited with status 9; restarting in 0.02 s (restart 1 of at most 5)`);
    expect(s.events[1]).toBe(`MCP server "mortal" restarted (pid ${await s.pid()}); withheld as changed: mortal__echo`);
    const changed = s.remote.refusedNow("mortal__echo");
    expect(changed).toMatchObject({
      code: "descriptor_changed",
      message: expect.stringContaining(
        'mortal__echo from mcp:mortal changed its descriptor since MCP server "mortal" was restarted',
      ),
    });
    expect(s.changes.at(-1)).toEqual({ mortal__echo: "descriptor_changed", mortal__slow: "ok", mortal__die: "ok" });
    // A call of it is refused before it reaches the child; the boot's catalog entry is left as it was.
    expect(await s.call("mortal__echo", { message: "x", loud: true })).toEqual({ ok: false, refusal: changed! });
    expect(lines(join(dir.path, "calls"))).toEqual(["die"]);
  }, 30_000);

  test("a tool that disappeared at a restart is refused", async () => {
    await using dir = tempDir();
    await using s = await supervised(dir.path);
    writeFileSync(join(dir.path, "variant"), "gone");
    process.kill(await s.pid(), "SIGKILL");
    await s.until("the restart", () => s.events.some((e) => e.includes("restarted")));
    expect(s.remote.refusedNow("mortal__echo")).toMatchObject({
      code: "descriptor_changed",
      message: expect.stringContaining("is no longer listed"),
    });
    expect(s.remote.refusedNow("mortal__slow")).toBeUndefined();
  }, 30_000);

  test("a child that keeps dying is restarted at most `attempts` times, with growing delays, then refused mcp.server_down with the reason", async () => {
    await using dir = tempDir();
    await using s = await supervised(dir.path);
    writeFileSync(join(dir.path, "die"), "");
    process.kill(await s.pid(), "SIGKILL");
    await s.until("the give-up", () => s.events.some((e) => e.includes("not restarted again")));
    expect(
      s.events.map((e) =>
        e.replace(/did not come back: .*told to die at start\n?/s, "did not come back: …told to die at start"),
      ),
    ).toEqual([
      `MCP server "mortal" was killed by a signal; restarting in 0.02 s (restart 1 of at most 5)`,
      `MCP server "mortal" did not come back: …told to die at start; restarting in 0.04 s (restart 2 of at most 5)`,
      `MCP server "mortal" did not come back: …told to die at start; restarting in 0.05 s (restart 3 of at most 5)`,
      `MCP server "mortal" did not come back: …told to die at start; restarting in 0.05 s (restart 4 of at most 5)`,
      `MCP server "mortal" did not come back: …told to die at start; restarting in 0.05 s (restart 5 of at most 5)`,
      `MCP server "mortal" did not come back: …told to die at start; not restarted again (5 restarts in a row failed); its tools are refused until toolgate restarts`,
    ]);
    const down = s.remote.refusedNow("mortal__echo");
    expect(down).toMatchObject({
      code: "mcp.server_down",
      message: expect.stringContaining("told to die at start; 5 restarts in a row failed"),
    });
    expect(await s.call("mortal__echo", { message: "x" })).toEqual({ ok: false, refusal: down! });
    expect(s.changes.at(-1)).toEqual({
      mortal__echo: "mcp.server_down",
      mortal__slow: "mcp.server_down",
      mortal__die: "mcp.server_down",
    });
    expect(s.journal.map((j) => `${j.status}${j.code ? ` ${j.code}` : ""}`)).toEqual([
      "started",
      "exited mcp.exited",
      ...Array.from({ length: 4 }, () => ["restarted", "exited mcp.exited"]).flat(),
      "restarted",
      "exited mcp.server_down",
    ]);
    // Only the first life got far enough to write its pid.
    expect(lines(join(dir.path, "pids")).length).toBe(1);
  }, 30_000);
});

describe("the restart count", () => {
  test("goes on while a child keeps dying soon after its start, and starts again once a child stayed up stableMs", async () => {
    await using dir = tempDir();
    let clock = 1_000_000;
    await using s = await supervised(dir.path, { now: () => clock });
    const kill = async (events: number) => {
      process.kill(await s.pid(), "SIGKILL");
      await s.until(`${events} events`, () => s.events.length >= events);
    };
    await kill(2);
    await kill(4);
    clock += FAST.stableMs;
    await kill(6);
    expect(s.events.filter((e) => e.includes("restarting")).map((e) => e.replace(/.*; /, ""))).toEqual([
      "restarting in 0.02 s (restart 1 of at most 5)",
      "restarting in 0.04 s (restart 2 of at most 5)",
      "restarting in 0.02 s (restart 1 of at most 5)",
    ]);
  }, 30_000);
});

describe("starting under supervision", () => {
  test("a start refused by a permission is reported once and not retried; its calls are refused naming the flag", async () => {
    await using dir = tempDir();
    // Listed and cached by a first process; this one may not start it.
    await (await supervised(dir.path)).remote.shutdown();
    await using s = await supervised(dir.path, { refresh: false, refuse: true });
    expect(s.events).toEqual([
      `MCP server "mortal" is not started: run access to "${process.execPath}" is not granted; run again with --allow-run`,
    ]);
    expect(s.changes).toEqual([]);
    expect(await s.call("mortal__echo", { message: "x" })).toMatchObject({
      ok: false,
      refusal: { code: "mcp.connect_failed", message: expect.stringContaining("--allow-run") },
    });
    expect(lines(join(dir.path, "pids")).length).toBe(1);
    expect(s.journal.map((j) => j.status)).toEqual(["refused", "refused"]);
  }, 30_000);

  test("a non-required server is started on first use under supervision, then kept and supervised", async () => {
    await using dir = tempDir();
    // A first process lists and caches the catalog; the supervised one starts nothing at boot.
    await (await supervised(dir.path, { required: false })).remote.shutdown();
    await using s = await supervised(dir.path, { required: false, refresh: false });
    expect(lines(join(dir.path, "pids")).length).toBe(1);
    expect(await s.call("mortal__echo", { message: "a" })).toMatchObject({ ok: true });
    expect(await s.call("mortal__echo", { message: "b" })).toMatchObject({ ok: true });
    const pids = lines(join(dir.path, "pids")).map(Number);
    expect(pids.length).toBe(2);
    process.kill(pids[1]!, "SIGKILL");
    await s.until("the restart", () => s.events.some((e) => e.includes("restarted")));
    expect(lines(join(dir.path, "pids")).length).toBe(3);
  }, 30_000);
});

describe("shutdown under supervision", () => {
  test("leaves no process, with a restart in progress", async () => {
    await using dir = tempDir();
    const s = await supervised(dir.path, { policy: { ...FAST, initialMs: 1 } });
    const first = await s.pid();
    process.kill(first, "SIGKILL");
    // The next child has started (its pid is written) but its connection may not be up yet.
    expect(await waitUntil(() => lines(join(dir.path, "pids")).length === 2, 10_000)).toBe(true);
    await s.remote.shutdown();
    const pids = lines(join(dir.path, "pids")).map(Number);
    expect(pids.length).toBe(2);
    expect(pids.filter(alive)).toEqual([]);
    // And nothing is started after it.
    expect(await s.call("mortal__echo", { message: "late" })).toMatchObject({
      ok: false,
      refusal: { code: "mcp.connect_failed", message: expect.stringContaining("shutting down") },
    });
    expect(lines(join(dir.path, "pids")).length).toBe(2);
  }, 30_000);

  test("a restart waiting out its backoff is cancelled: no child is started after", async () => {
    await using dir = tempDir();
    const s = await supervised(dir.path, { policy: { ...FAST, initialMs: 300, maxMs: 300 } });
    process.kill(await s.pid(), "SIGKILL");
    await s.until("the exit", () => s.events.length === 1);
    expect(s.events).toEqual([
      `MCP server "mortal" was killed by a signal; restarting in 0.3 s (restart 1 of at most 5)`,
    ]);
    await s.remote.shutdown();
    // Nothing to await here: the absence of a start is seen only after its time has passed.
    await Bun.sleep(600);
    expect(lines(join(dir.path, "pids")).length).toBe(1);
    expect(s.events.length).toBe(1);
  }, 30_000);
});

describe("a supervised HTTP server", () => {
  // Stateful (session ids); forget() plays a restart of the server: every old session id gets 404.
  let server: HttpMcp;
  beforeAll(() => void (server = serveMcp({ sessions: true })));
  afterAll(() => server.stop());

  test("a session the server no longer knows (it restarted) is reconnected; the next call works", async () => {
    await using dir = tempDir();
    const hostPort = `127.0.0.1:${server.port}`;
    const web: RemoteSpec = {
      name: "web",
      origin: "mcp:web",
      kind: "mcp",
      required: true,
      network: true,
      pin: false,
      needs: [{ kind: "net", value: hostPort }],
      transport: { kind: "http", url: `http://${hostPort}/mcp`, headers: {}, secrets: {} },
      connectTimeoutMs: 10_000,
      timeoutMs: 10_000,
      graceMs: 2_000,
    };
    await using s = await supervised(dir.path, { spec: web });
    const ok = { ok: true as const, value: { content: [{ type: "text", text: "hello" }] } };
    expect(await s.call("web__hello")).toEqual(ok);
    server.forget();
    // Refused by the server before it ran: a failure, not indeterminate.
    expect(await s.call("web__hello")).toMatchObject({ ok: false, refusal: { code: "remote_tool" } });
    await s.until("the reconnect", () => s.events.length >= 2);
    expect(s.events).toEqual([
      `MCP server "web" no longer knows this session (HTTP 404); reconnecting in 0.02 s (reconnect 1 of at most 5)`,
      `MCP server "web" reconnected`,
    ]);
    expect(await s.call("web__hello")).toEqual(ok);
    expect(s.asked).toEqual([`net:${hostPort}`]);
  }, 30_000);
});
