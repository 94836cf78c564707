// End to end: Las, the supervised MCP child, against the fixture Las (a real MCP stdio server
// written with the SDK). Every boot check of Las, outcomes, the boundary, the cache, pinning.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, json, run as runBin, tempDir, type RunResult } from "../helpers.ts";
import { eventually } from "../support/wait.ts";

// The user's state folder (trust records) lies outside every workspace: one inside is not read.
const STATE = mkdtempSync(join(tmpdir(), "toolgate-las-state-"));
afterAll(() => rmSync(STATE, { recursive: true, force: true }));
const run: typeof runBin = (args, opts) => runBin(args, { ...opts, env: { XDG_STATE_HOME: STATE, ...opts.env } });

const FIXTURE = join(import.meta.dir, "..", "fixtures", "las", "server.ts");
const GRANT = ["--allow-run", "--approve", "all"];

/** A workspace whose Las is the fixture started with `flags`, through a wrapper script. */
function lasWorkspace(dir: string, flags: string[] = [], las: Record<string, unknown> = {}) {
  const wrapper = join(dir, "las.sh");
  const files = { env: join(dir, "env.json"), pid: join(dir, "las.pid"), calls: join(dir, "calls.txt") };
  // `env -u PWD`: the wrapper shell exports PWD itself; the fixture must see only what toolgate gave.
  // las.flags: more flags the wrapper reads itself, a change behind it no declaration names.
  writeFileSync(
    wrapper,
    `#!/bin/sh\nexec /usr/bin/env -u PWD ${process.execPath} ${FIXTURE} --env-out=${files.env} --pid-out=${files.pid} --calls-out=${files.calls} ${flags.join(" ")} $(cat ${join(dir, "las.flags")} 2>/dev/null)\n`,
  );
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
        ...las,
      },
    }),
  );
  // las.agent_id and the release files grant: the user trusts this config (records in STATE, where run() looks).
  Bun.spawnSync([BIN, "trust"], {
    cwd: dir,
    env: { PATH: "/usr/bin:/bin", HOME: dir, XDG_STATE_HOME: STATE },
    stdout: "ignore",
    stderr: "ignore",
  });
  return files;
}

const lines = (r: RunResult) =>
  r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
/** The journal's call rows: a server's own start has a row of its own (server_started), left out here. */
const callRows = (r: RunResult) => lines(r).filter((x) => !String(x.event).startsWith("server_"));
const alive = (pid: number) =>
  existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z");
const gone = (pid: number, ms: number) => eventually(() => !alive(pid), ms);
/** Live reapers (`toolgate __reap`) of the server `pid` (its pid is the root of the tree in their orders). */
const reapers = (pid: number) =>
  readdirSync("/proc").filter((p) => {
    try {
      return (
        /^\d+$/.test(p) &&
        alive(Number(p)) &&
        readFileSync(`/proc/${p}/cmdline`, "utf8").startsWith(`${BIN}\0__reap\0`) &&
        readFileSync(`/proc/${p}/cmdline`, "utf8").includes(`"root":${pid},`)
      );
    } catch {
      return false;
    }
  });

describe("Las boot", () => {
  test("its tools join the catalog under their own names; the child's environment is exactly the documented one", async () => {
    await using dir = tempDir();
    const f = lasWorkspace(dir.path, [], {
      skip: ["tama"],
      release_manifest_file: "/r/m",
      release_manifest_signature_file: "/r/s",
      release_trust_store_file: "/r/t",
      release_watermark_file: "/r/w",
    });
    const r = await run(["tools", "--allow-run"], {
      cwd: dir.path,
      env: { SKARBIEC_VAULT: "/vault", AWS_SECRET_ACCESS_KEY: "nope", NODE_OPTIONS: "--inspect", LD_PRELOAD: "/x.so" },
    });
    expect(r.code).toBe(0);
    const names = lines(r)
      .filter((d) => d.origin === "las")
      .map((d) => d.name);
    expect(names).toContain("skarbiec__whoami");
    expect(names).toContain("finance__balance");
    const env = JSON.parse(readFileSync(f.env, "utf8"));
    expect(env).toEqual({
      PATH: "/usr/bin:/bin:/usr/sbin:/sbin:/opt/homebrew/bin:/usr/local/bin",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      LAS_ONLY: "weles,skarbiec,tama,stado,lem,echo,most,probierz,byk,brama,warsztat,finance",
      LAS_SKIP: "tama",
      LAS_RELEASE_MANIFEST_FILE: "/r/m",
      LAS_RELEASE_MANIFEST_SIGNATURE_FILE: "/r/s",
      LAS_RELEASE_TRUST_STORE_FILE: "/r/t",
      LAS_RELEASE_WATERMARK_FILE: "/r/w",
      SKARBIEC_VAULT: "/vault",
      SKARBIEC_MCP_AGENT_ID: "being-7",
    });
  });

  test("LAS_ONLY and LAS_SKIP from the environment reach the child", async () => {
    await using dir = tempDir();
    const f = lasWorkspace(dir.path, [], { required_surfaces: ["echo"] });
    const r = await run(["tools", "--allow-run"], {
      cwd: dir.path,
      env: { LAS_ONLY: "echo,finance", LAS_SKIP: "finance" },
    });
    expect(r.code).toBe(0);
    const env = JSON.parse(readFileSync(f.env, "utf8"));
    expect([env.LAS_ONLY, env.LAS_SKIP, env.SKARBIEC_MCP_AGENT_ID]).toEqual(["echo,finance", "finance", undefined]);
    expect(
      lines(r)
        .filter((d) => d.origin === "las")
        .every((d) => d.name.startsWith("echo__")),
    ).toBe(true);
  });

  test.each([
    [
      "another protocol version",
      ["--protocol=2025-06-18"],
      {},
      {},
      /negotiated MCP protocol "2025-06-18"; toolgate speaks 2024-11-05 only/,
    ],
    ["a missing required surface", [], {}, { LAS_SKIP: "finance" }, /no finance__\* tool/],
    [
      "a duplicate name",
      ["--duplicate"],
      {},
      {},
      /tool name collision: "echo__echo" from las and "echo__echo" from las/,
    ],
    [
      "a collision with a built-in",
      ["--builtin-collision"],
      {},
      {},
      /"file_read" from builtin and "file_read" from las/,
    ],
    [
      "a non-object schema",
      ["--non-object-schema"],
      {},
      {},
      /echo__weird" from las: the input schema must be a JSON object schema/,
    ],
    ["a bad name", ["--bad-name"], {}, {}, /"echo__bad name" from las is not 1-128 ASCII/],
  ])("%s fails the boot with exit 5", async (_what, flags, las, env, message) => {
    await using dir = tempDir();
    lasWorkspace(dir.path, flags, las);
    // `tools` starts Las to list it (a call of a built-in never does).
    const r = await run(["tools", "--allow-run"], { cwd: dir.path, env });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(message);
    // No call was journaled: at most the row of Las's own start (server_started, written before it ran).
    const log = await run(["log", "--json"], { cwd: dir.path, env });
    const events = log.stdout
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).event);
    expect(events.filter((e: string) => e !== "server_started")).toEqual([]);
  });

  test("skarbiec without an agent id is refused before any process starts", async () => {
    await using dir = tempDir();
    const f = lasWorkspace(dir.path, [], { agent_id: undefined });
    const r = await run(["tools", "--allow-run"], { cwd: dir.path });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("skarbiec surface needs an explicit agent id");
    expect(existsSync(f.pid)).toBe(false);
  });

  test("connecting is an effect: without the run grant nothing is spawned and the flag is named", async () => {
    await using dir = tempDir();
    const f = lasWorkspace(dir.path);
    const r = await run(["tools"], { cwd: dir.path });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`--allow-run=${realpathSync("/bin/sh")}`);
    expect(existsSync(f.pid)).toBe(false);
  });
});

describe("Las calls", () => {
  test("success, remote_tool, and noise on stdout tolerated", async () => {
    await using dir = tempDir();
    lasWorkspace(dir.path, ["--noise"]);
    const ok = await run(["call", "skarbiec__whoami", "{}", ...GRANT], { cwd: dir.path });
    expect([ok.code, json(ok)]).toEqual([
      0,
      { status: "success", tool: "skarbiec__whoami", payload: { content: [{ type: "text", text: "agent being-7" }] } },
    ]);
    const fail = await run(["call", "echo__fail", "{}", ...GRANT], { cwd: dir.path });
    expect(fail.code).toBe(1);
    expect(json(fail)).toMatchObject({ status: "failed", error_code: "remote_tool", message: "the remote said no" });
  });

  test("a crash mid-call is indeterminate (exit 3), journaled, never replayed", async () => {
    await using dir = tempDir();
    const f = lasWorkspace(dir.path);
    const r = await run(["call", "echo__crash", "{}", ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(3);
    // The result says how the server ended; only the operator (stderr) gets its stderr tail.
    expect(json(r)).toEqual({
      status: "indeterminate",
      tool: "echo__crash",
      error_code: "transport_lost",
      message:
        "echo__crash: the connection failed mid-call (Las exited with status 3); the remote effect is unknown and the call is not replayed",
    });
    expect(r.stderr).toContain("toolgate: Las's stderr ends with: panic: the ledger is on fire");
    expect(readFileSync(f.calls, "utf8")).toBe("echo__crash\n");
    const log = await run(["log", "--json"], { cwd: dir.path });
    expect(callRows(log).map((x) => [x.tool, x.status, x.error_code, x.origin])).toEqual([
      ["echo__crash", "indeterminate", "transport_lost", "las"],
    ]);
  });

  // The deadline covers initialize and tools/list too: long enough for a loaded 2-core machine to
  // start the fixture server, short enough to keep the test quick.
  const HANG_DEADLINE_SECS = "4";
  test("a hang hits the deadline (SINGULARITY_MCP_TIMEOUT_SECS): indeterminate, and the child is gone", async () => {
    await using dir = tempDir();
    const f = lasWorkspace(dir.path, [], { timeout_secs: undefined });
    await run(["tools", "--allow-run"], { cwd: dir.path, env: { SINGULARITY_MCP_TIMEOUT_SECS: HANG_DEADLINE_SECS } });
    const r = await run(["call", "echo__hang", "{}", ...GRANT], {
      cwd: dir.path,
      env: { SINGULARITY_MCP_TIMEOUT_SECS: HANG_DEADLINE_SECS },
    });
    expect(r.code).toBe(3);
    expect(json(r)).toMatchObject({ status: "indeterminate", error_code: "deadline" });
    // Its stdin closed, it leaves by itself (the reaper waits for that, then ends what is left).
    expect(await gone(Number(readFileSync(f.pid, "utf8")), 3_000)).toBe(true);
  });

  test("the call exits at its result; a reaper closes stdin, waits the grace, then kills: nothing is left", async () => {
    await using dir = tempDir();
    const f = lasWorkspace(dir.path, ["--linger", "--ignore-term"], { shutdown_grace_secs: 3 });
    await run(["tools", "--allow-run"], { cwd: dir.path });
    const r = await run(["call", "echo__echo", '{"message":"hi"}', ...GRANT], { cwd: dir.path });
    const returned = performance.now();
    expect([r.code, json(r)]).toEqual([
      0,
      { status: "success", tool: "echo__echo", payload: { content: [{ type: "text", text: "hi" }] } },
    ]);
    const pid = Number(readFileSync(f.pid, "utf8"));
    // The caller did not wait for the server: it lingers (TERM ignored) until the grace runs out...
    expect(alive(pid)).toBe(true);
    expect(reapers(pid).length).toBe(1);
    // ...then it is killed: gone within the grace and a second, and the reaper with it.
    expect(await gone(pid, 3_000 + 1_000 - (performance.now() - returned))).toBe(true);
    expect(await eventually(() => reapers(pid).length === 0, 5_000)).toBe(true);
  });

  test("tools --refresh exits at its listing too: the server it started is left to a reaper, which ends it", async () => {
    await using dir = tempDir();
    const f = lasWorkspace(dir.path, ["--linger", "--ignore-term"], { shutdown_grace_secs: 3 });
    const r = await run(["tools", "--refresh", "--json", "--allow-run"], { cwd: dir.path });
    const returned = performance.now();
    expect(r.code).toBe(0);
    expect(lines(r).some((d) => d.name === "echo__echo")).toBe(true);
    const pid = Number(readFileSync(f.pid, "utf8"));
    // The listing did not wait the server out: it lingers (TERM ignored), its reaper beside it...
    expect(alive(pid)).toBe(true);
    expect(reapers(pid).length).toBe(1);
    // ...until the grace runs out: then it is killed, and the reaper is gone with it.
    expect(await gone(pid, 3_000 + 1_000 - (performance.now() - returned))).toBe(true);
    expect(await eventually(() => reapers(pid).length === 0, 5_000)).toBe(true);
  });

  test("a server that leaves when its stdin closes is gone well within the grace, and so is the reaper", async () => {
    await using dir = tempDir();
    const f = lasWorkspace(dir.path, [], { shutdown_grace_secs: 30 });
    await run(["tools", "--allow-run"], { cwd: dir.path });
    const r = await run(["call", "echo__echo", '{"message":"hi"}', ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(0);
    const pid = Number(readFileSync(f.pid, "utf8"));
    expect(await gone(pid, 5_000)).toBe(true);
    expect(await eventually(() => reapers(pid).length === 0, 5_000)).toBe(true);
  });

  test.each([
    ["echo__leak_key", "secret_key"],
    ["echo__leak_pem", "pem"],
    ["echo__leak_path", "local_path"],
    ["echo__big", "size"],
    ["echo__deep", "depth"],
  ])("%s is replaced whole at the boundary (%s)", async (tool, rule) => {
    await using dir = tempDir();
    lasWorkspace(dir.path);
    const r = await run(["call", tool, "{}", ...GRANT], { cwd: dir.path });
    expect([r.code, json(r)]).toEqual([1, { status: "failed", error_code: "sensitive_output_rejected" }]);
    const [row] = callRows(await run(["log", "--json"], { cwd: dir.path }));
    expect(JSON.parse(row.detail).rule).toBe(rule);
  });
});

describe("the catalog cache and pinning", () => {
  test("a warm cache lists and calls built-ins without starting Las; --refresh lists it again", async () => {
    await using dir = tempDir();
    const f = lasWorkspace(dir.path);
    expect((await run(["tools", "--allow-run"], { cwd: dir.path })).code).toBe(0);
    const firstPid = readFileSync(f.pid, "utf8");
    writeFileSync(join(dir.path, "a.txt"), "x\n");
    expect((await run(["tools"], { cwd: dir.path })).code).toBe(0);
    expect(
      (
        await run(["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"], {
          cwd: dir.path,
        })
      ).code,
    ).toBe(0);
    expect(readFileSync(f.pid, "utf8")).toBe(firstPid);
    expect((await run(["tools", "--refresh", "--allow-run"], { cwd: dir.path })).code).toBe(0);
    expect(readFileSync(f.pid, "utf8")).not.toBe(firstPid);
  });

  test("a changed descriptor is refused against the lock, a new tool is unpinned, until the lock is renewed", async () => {
    await using dir = tempDir();
    lasWorkspace(dir.path);
    expect((await run(["tools", "--lock", "--allow-run"], { cwd: dir.path })).code).toBe(0);
    lasWorkspace(dir.path, ["--schema-v2", "--extra-tool"]);
    expect((await run(["tools", "--refresh", "--allow-run"], { cwd: dir.path })).code).toBe(0);
    const changed = await run(["call", "echo__echo", '{"message":"hi","loud":true}', ...GRANT], { cwd: dir.path });
    expect([changed.code, json(changed).error_code]).toEqual([5, "descriptor_changed"]);
    expect(json(changed).message).toContain("input schema changed");
    const unpinned = await run(["call", "echo__extra", "{}", ...GRANT], { cwd: dir.path });
    expect([unpinned.code, json(unpinned).error_code]).toEqual([5, "descriptor_unpinned"]);
    expect((await run(["tools", "--lock", "--allow-run"], { cwd: dir.path })).code).toBe(0);
    expect((await run(["call", "echo__echo", '{"message":"hi","loud":true}', ...GRANT], { cwd: dir.path })).code).toBe(
      0,
    );
  });

  test("a server that changed since the cache was listed is refused descriptor_changed, not called", async () => {
    await using dir = tempDir();
    const f = lasWorkspace(dir.path);
    expect((await run(["tools", "--allow-run"], { cwd: dir.path })).code).toBe(0);
    // Same config and wrapper, different behaviour behind them (a file only the wrapper reads):
    // neither the fingerprint nor the digest can see it. (A changed wrapper changes both.)
    writeFileSync(join(dir.path, "las.flags"), "--schema-v2");
    const r = await run(["call", "echo__echo", '{"message":"hi"}', ...GRANT], { cwd: dir.path });
    expect([r.code, json(r).error_code]).toEqual([5, "descriptor_changed"]);
    expect(existsSync(f.calls)).toBe(false);
  });
});
