// No process of a launched tree survives: TERM-ignoring grandchildren, processes in sessions
// of their own, orphans that still hold the child's output, and what outlives the leader.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { holdersOf, outputIds, parseStat, readStat } from "../../src/launcher/proc-tree.ts";
import type { LaunchSpec } from "../../src/launcher/types.ts";
import { tempDir } from "../helpers.ts";
import { env, FIXTURES, gone, launcherWith, pidsIn, pidsPrinted, waitFor } from "./support.ts";

const launcher = launcherWith();

function spec(dir: string, script: string, extra: Partial<LaunchSpec> = {}): LaunchSpec {
  return {
    argv: ["/bin/sh", join(FIXTURES, script), FIXTURES, join(dir, "pids")],
    env: env(),
    cwd: dir,
    deadlineMs: 30_000,
    graceMs: 100,
    artifactsDir: join(dir, "artifacts"),
    ...extra,
  };
}

describe("ending the tree", () => {
  test("after a timeout no process of a tree with a TERM-ignoring grandchild survives", async () => {
    await using dir = tempDir();
    // The deadline is what ends the run; the pid file only tells the test the tree is complete.
    const running = launcher.launch(spec(dir.path, "tree.sh", { deadlineMs: 1_500 }));
    const pids = await pidsIn(join(dir.path, "pids"), 3);
    expect(pids.every((p) => !gone(p))).toBe(true);
    const r = await running;
    if (!r.ok) throw new Error(r.refusal.message);
    expect(r.value).toMatchObject({ ended: "timeout", survivors: [], outputAbandoned: false });
    expect(pidsPrinted(r.value.stdout.tail).sort()).toEqual([...pids].sort());
    expect(pids.filter((p) => !gone(p))).toEqual([]);
  });

  test("a cancel ends the whole tree", async () => {
    await using dir = tempDir();
    const abort = new AbortController();
    const running = launcher.launch(spec(dir.path, "tree.sh", { signal: abort.signal }));
    const pids = await pidsIn(join(dir.path, "pids"), 3);
    abort.abort();
    const r = await running;
    expect(r.ok && r.value.ended).toBe("cancelled");
    expect(pids.filter((p) => !gone(p))).toEqual([]);
  });

  test("a grandchild that started its own session is ended too", async () => {
    await using dir = tempDir();
    const abort = new AbortController();
    const running = launcher.launch(spec(dir.path, "own-session.sh", { signal: abort.signal }));
    const [leader, escaped] = await pidsIn(join(dir.path, "pids"), 2);
    // It really left: a session (and group) of its own, not the leader's.
    expect(readStat(escaped!)?.sid).toBe(escaped);
    expect(readStat(leader!)?.sid).toBe(leader);
    abort.abort();
    const r = await running;
    expect(r.ok && r.value.ended).toBe("cancelled");
    expect([leader, escaped].filter((p) => !gone(p!))).toEqual([]);
  });

  test("an orphan in its own session that still holds the child's output is found and ended", async () => {
    await using dir = tempDir();
    const r = await launcher.launch(spec(dir.path, "daemon.sh"));
    const pids = await pidsIn(join(dir.path, "pids"), 2);
    if (!r.ok) throw new Error(r.refusal.message);
    expect(r.value).toMatchObject({ ended: "exited", code: 0, survivors: [], outputAbandoned: false });
    expect(r.value.leftovers).toBeGreaterThanOrEqual(1);
    expect(pids.filter((p) => !gone(p))).toEqual([]);
  });

  test("what outlives the leader is ended, and the run still reports the leader's exit", async () => {
    await using dir = tempDir();
    const pidFile = join(dir.path, "pids");
    const script = `echo $$ >> ${pidFile}; /bin/sh ${join(FIXTURES, "ignore-term.sh")} ${pidFile} & i=0; while [ "$(wc -l < ${pidFile})" -lt 2 ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done; exit 3`;
    const r = await launcher.launch({ ...spec(dir.path, "tree.sh"), argv: ["/bin/sh", "-c", script] });
    if (!r.ok) throw new Error(r.refusal.message);
    expect(r.value).toMatchObject({ ended: "exited", code: 3, leftovers: 1, survivors: [] });
    expect((await pidsIn(pidFile, 2)).filter((p) => !gone(p))).toEqual([]);
  });
});

describe("parseStat", () => {
  test("reads the fields after a command name holding spaces and parentheses", () => {
    const line = "4242 (a) b (c) S 17 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 1 1 1";
    expect(parseStat(line)).toEqual({ pid: 4242, state: "S", ppid: 17, pgid: 4242, sid: 4242, start: 987654 });
  });

  test("refuses a truncated line", () => {
    expect(parseStat("4242 (sh")).toBeNull();
  });
});

describe("holdersOf", () => {
  test("finds the processes holding a child's stdout and stderr", async () => {
    await using dir = tempDir();
    const marker = join(dir.path, "ready");
    const proc = Bun.spawn(["/bin/sh", "-c", `touch ${marker}; exec sleep 1000`], { stdout: "pipe", stderr: "pipe" });
    try {
      await waitFor("the child to start", () => existsSync(marker));
      const ids = outputIds(proc.pid);
      expect(ids).toHaveLength(2);
      expect(holdersOf(ids)).toEqual([proc.pid]);
    } finally {
      proc.kill("SIGKILL");
      await proc.exited;
    }
  });
});
