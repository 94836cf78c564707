// No process of a launched tree survives: TERM-ignoring grandchildren, processes in sessions
// of their own, orphans that still hold the child's output, and what outlives the leader.
// Full suite only: process trees, some ended only after their grace.
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { endTree } from "../../src/launcher/end-tree.ts";
import { holdersOf, outputIds, ProcessTree, processRuns, readStat } from "../../src/launcher/proc-tree.ts";
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

// What a tree is on another platform, run here: without /proc (macOS) it is the child's process
// group, so a grandchild that made a session of its own is not found; without groups (Windows) it
// is the child alone. docs/security.md's table says so.
describe("without a process table", () => {
  const start = (dir: string, script: string) =>
    Bun.spawn(["/bin/sh", join(FIXTURES, script), FIXTURES, join(dir, "pids")], {
      cwd: dir,
      env: {},
      detached: true,
      stdout: "ignore",
      stderr: "ignore",
    });

  test("the tree is the child's group: it ends, and a grandchild in a session of its own survives", async () => {
    await using dir = tempDir();
    const proc = start(dir.path, "own-session.sh");
    const tree = new ProcessTree(proc.pid, { processes: null, processGroups: true });
    const [leader, escaped] = await pidsIn(join(dir.path, "pids"), 2);
    try {
      expect([tree.sample(), tree.anyLive()]).toEqual([[], true]);
      expect(await endTree(tree, 100)).toEqual({ signalled: 0, survivors: [] });
      await proc.exited;
      expect([gone(leader!), gone(escaped!), tree.anyLive()]).toEqual([true, false, false]);
    } finally {
      process.kill(escaped!, "SIGKILL");
    }
  });

  test("whether a process runs is whether its pid exists (a task's supervisor, a session): no start time to tell a reused pid", async () => {
    const portable = { processes: null, processGroups: true };
    const ended = Bun.spawn(["/bin/true"]);
    await ended.exited;
    expect([processRuns(process.pid, 12345, portable), processRuns(ended.pid, null, portable)]).toEqual([true, false]);
    // With the table, the start time must match too.
    expect([processRuns(process.pid, null), processRuns(process.pid, (readStat(process.pid)?.start ?? 0) + 1)]).toEqual(
      [true, false],
    );
  });

  test("without process groups only the child itself is signalled", async () => {
    await using dir = tempDir();
    const proc = start(dir.path, "tree.sh");
    const tree = new ProcessTree(proc.pid, { processes: null, processGroups: false });
    const pids = await pidsIn(join(dir.path, "pids"), 3);
    try {
      await endTree(tree, 100);
      await proc.exited;
      expect(pids.map(gone)).toEqual([true, false, false]);
    } finally {
      process.kill(-proc.pid, "SIGKILL");
    }
  });
});
