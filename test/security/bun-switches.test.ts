// Bun's runtime switches in the caller's environment are toolgate's own, not the caller's
// (src/launcher/bun-switches.ts, docs/security.md). Against dist/toolgate: BUN_OPTIONS is never
// parsed (no module it names runs, no profile is written); the variables Bun acts on at exit or
// throughout are gone before anything runs (no file where they point); those Bun acts on before
// toolgate's own code are refused (exit 2), and the test says what ran all the same; none of them
// reaches a process toolgate starts itself (a session, a task's supervisor).
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run as runBin, tempDir } from "../helpers.ts";

const users = new Set<string>();
afterAll(() => {
  for (const p of users) rmSync(p, { recursive: true, force: true });
});
/** The user's state folder (sessions, tasks' state) outside the workspace. */
const run: typeof runBin = (args, opts) => (
  users.add(`${opts.cwd}.user`),
  runBin(args, { ...opts, env: { XDG_STATE_HOME: join(`${opts.cwd}.user`, "state"), ...opts.env } })
);

/** A module that leaves `marker` behind when anything loads it. */
function preload(dir: string): { file: string; marker: string } {
  const marker = join(dir, "marker");
  const file = join(dir, "pre.js");
  writeFileSync(file, `require("fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`);
  return { file, marker };
}

/** What `dir` holds, as names (a profile, a cache, a warnings file, the marker). */
const held = (dir: string) => readdirSync(dir).sort();

describe("BUN_OPTIONS is never parsed", () => {
  test.each([
    ["--preload=FILE", (f: string) => `--preload=${f}`],
    ["-r FILE", (f: string) => `-r ${f}`],
    ["--import=FILE", (f: string) => `--import=${f}`],
    ["--cpu-prof --cpu-prof-dir=OUT", (_f: string, out: string) => `--cpu-prof --cpu-prof-dir=${out}`],
    ["--heap-prof --heap-prof-dir=OUT", (_f: string, out: string) => `--heap-prof --heap-prof-dir=${out}`],
    ["--redirect-warnings=OUT/w --title=x", (_f: string, out: string) => `--redirect-warnings=${out}/w --title=x`],
  ])("BUN_OPTIONS=%s: nothing loads, nothing is written, the call runs", async (_name, options) => {
    await using dir = tempDir();
    const { file, marker } = preload(dir.path);
    const out = join(dir.path, "out");
    mkdirSync(out);
    const r = await run(["call", "plan", "{}"], { cwd: dir.path, env: { BUN_OPTIONS: options(file, out) } });
    expect([r.code, json(r).status]).toEqual([0, "success"]);
    expect([existsSync(marker), held(out)]).toEqual([false, []]);
  });
});

describe("what Bun acts on at exit or throughout is gone before anything runs", () => {
  test.each([
    ["BUN_BYTECODE_ORDER_OUT", (out: string) => ({ BUN_BYTECODE_ORDER_OUT: join(out, "order") })],
    ["BUN_BYTECODE_DIGEST_OUT", (out: string) => ({ BUN_BYTECODE_DIGEST_OUT: join(out, "digest") })],
    ["BUN_BYTECODE_ORDER_OUT with %p", (out: string) => ({ BUN_BYTECODE_ORDER_OUT: join(out, "order-%p") })],
  ])("%s: no file where it points, the call runs", async (_name, env) => {
    await using dir = tempDir();
    const out = join(dir.path, "out");
    mkdirSync(out);
    const r = await run(["call", "plan", "{}"], { cwd: dir.path, env: env(out) });
    expect([r.code, json(r).status]).toEqual([0, "success"]);
    expect(held(out)).toEqual([]);
  });

  // JSC's sampling profiler suspends the main thread with SIGPWR again and again: one that lands
  // during toolgate's execve of itself reaches the new image before any handler, and ends it (exit
  // 158; nothing ran). What must hold every time is that no profile is written; each of 10 runs
  // either ran the call or ended so, and at least one ran it.
  test("BUN_JSC_useSamplingProfiler: no file where it points; the call runs, or ends by SIGPWR before anything ran", async () => {
    await using dir = tempDir();
    const out = join(dir.path, "out");
    mkdirSync(out);
    const ends: string[] = [];
    for (let i = 0; i < 10; i++) {
      const r = await run(["call", "plan", "{}"], {
        cwd: dir.path,
        env: { BUN_JSC_useSamplingProfiler: "1", BUN_JSC_samplingProfilerPath: out },
      });
      ends.push(
        r.code === 0 && json(r).status === "success"
          ? "ran"
          : r.code === 158 && r.stdout === ""
            ? "SIGPWR"
            : `exit ${r.code}: ${r.stdout}${r.stderr}`,
      );
    }
    expect(ends.filter((e) => e !== "ran" && e !== "SIGPWR")).toEqual([]);
    expect(ends.filter((e) => e === "ran").length).toBeGreaterThan(0);
    expect(held(out)).toEqual([]);
  }, 60_000);

  test("a refusal's output is unchanged: the arguments reach the second start whole", async () => {
    await using dir = tempDir();
    const r = await run(["call", "plan", "{", "--approve", "plan"], { cwd: dir.path, env: { BUN_OPTIONS: "--smol" } });
    const plain = await run(["call", "plan", "{", "--approve", "plan"], { cwd: dir.path });
    expect(r).toEqual(plain);
  });
});

describe("what Bun acts on before toolgate's own code is refused", () => {
  // Bun reads BUN_INSPECT_PRELOAD with the options it parses on every start and loads the module
  // before the program: no build option stops it (docs/security.md). toolgate then refuses to run.
  test("BUN_INSPECT_PRELOAD: exit 2 naming it and what to do; the module did run, before toolgate", async () => {
    await using dir = tempDir();
    const { file, marker } = preload(dir.path);
    const r = await run(["call", "plan", "{}"], { cwd: dir.path, env: { BUN_INSPECT_PRELOAD: file } });
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toContain("toolgate: BUN_INSPECT_PRELOAD set: Bun's runtime switches are toolgate's own");
    expect(r.stderr).toContain("hint: unset BUN_INSPECT_PRELOAD");
    expect(existsSync(marker)).toBe(true);
  });

  test("BUN_INSPECT (a debugger listening): exit 2 naming it, the VS Code hint with it", async () => {
    await using dir = tempDir();
    const r = await run(["call", "plan", "{}"], { cwd: dir.path, env: { BUN_INSPECT: "127.0.0.1:0/toolgate-test" } });
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toContain("toolgate: BUN_INSPECT set:");
    expect(r.stderr).toContain(
      "hint: unset BUN_INSPECT (a VS Code terminal with Bun's extension sets BUN_INSPECT and BUN_INSPECT_NOTIFY)",
    );
  });

  // BUN_BE_BUN=1 makes the executable Bun's own CLI before anything of toolgate's exists: toolgate
  // never runs (nothing to refuse), so the caller holds no more than a plain `bun` would give it.
  test("BUN_BE_BUN=1: the executable is Bun's CLI, toolgate never runs", async () => {
    await using dir = tempDir();
    const r = await run(["--version"], { cwd: dir.path, env: { BUN_BE_BUN: "1" } });
    expect(r.stdout).not.toContain("toolgate");
  });
});

// Bun 1.4.4 leaves these alone in a compiled executable; should an upgrade start to honour one, this fails.
describe("variables the compiled executable does not act on", () => {
  test.each([
    ["NODE_OPTIONS=--require=FILE", (f: string) => ({ NODE_OPTIONS: `--require=${f}` })],
    ["NODE_OPTIONS=--import=FILE", (f: string) => ({ NODE_OPTIONS: `--import=${f}` })],
    ["NODE_COMPILE_CACHE=OUT", (_f: string, out: string) => ({ NODE_COMPILE_CACHE: out })],
    [
      "BUN_RUNTIME_TRANSPILER_CACHE_PATH=OUT",
      (_f: string, out: string) => ({ BUN_RUNTIME_TRANSPILER_CACHE_PATH: out }),
    ],
  ])("%s: nothing loads, nothing is written, the call runs", async (_name, env) => {
    await using dir = tempDir();
    const { file, marker } = preload(dir.path);
    const out = join(dir.path, "out");
    mkdirSync(out);
    const r = await run(["call", "plan", "{}"], { cwd: dir.path, env: env(file, out) });
    expect([r.code, json(r).status]).toEqual([0, "success"]);
    expect([existsSync(marker), held(out)]).toEqual([false, []]);
  });
});

describe("a process toolgate starts itself gets none of them", () => {
  const switches = (out: string) => ({
    BUN_OPTIONS: "--smol",
    BUN_BE_BUN: "0",
    BUN_BYTECODE_ORDER_OUT: join(out, "order"),
    BUN_JSC_useJIT: "1",
    NODE_REDIRECT_WARNINGS: join(out, "warnings"),
  });
  /** The names in /proc/PID/environ that are Bun's switches (as bun-switches.ts lists them). */
  const switchesOf = (pid: number) =>
    readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .map((kv) => kv.slice(0, kv.indexOf("=")))
      .filter((n) => /^(BUN_OPTIONS|BUN_BE_BUN|NODE_REDIRECT_WARNINGS|BUN_BYTECODE_|BUN_JSC_|BUN_INSPECT)/.test(n));

  test("a session (session start), its environment and what it writes at exit", async () => {
    await using dir = tempDir();
    const out = join(dir.path, "out");
    mkdirSync(out);
    const env = switches(out);
    expect((await run(["session", "start", "--idle-secs", "60"], { cwd: dir.path, env })).code).toBe(0);
    try {
      const st = JSON.parse((await run(["session", "status", "--json"], { cwd: dir.path })).stdout) as { pid: number };
      expect(switchesOf(st.pid)).toEqual([]);
    } finally {
      expect((await run(["session", "stop"], { cwd: dir.path })).code).toBe(0);
    }
    expect(held(out)).toEqual([]);
  });

  test("a task's supervisor (call --background), its environment and what it writes at exit", async () => {
    await using dir = tempDir();
    const out = join(dir.path, "out");
    mkdirSync(out);
    const r = await run(
      ["call", "bash", JSON.stringify({ command: "sleep 1" }), "--background", "--allow-run", "--approve", "bash"],
      { cwd: dir.path, env: switches(out) },
    );
    expect(r.code).toBe(0);
    const id = json(r).task_id as string;
    const supervisor = readdirSync("/proc")
      .filter((p) => /^\d+$/.test(p))
      .find((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").includes(id);
        } catch {
          return false;
        }
      });
    expect(supervisor).toBeDefined();
    expect(switchesOf(Number(supervisor))).toEqual([]);
    expect((await run(["tasks", "wait", id], { cwd: dir.path })).code).toBe(0);
    expect(held(out)).toEqual([]);
  });
});
