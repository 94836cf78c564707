// The reaper: a server handed over by a process that exits is shut down in order (stdin
// closed, the grace, the tree killed) from another process's view of its tree, and a pid reused
// since the hand-over is never taken for a member.
// Full suite only: servers as children, one ended only after its grace.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { StreamRedactor } from "../../src/boundary/redact.ts";
import { ProcessTree, readStat } from "../../src/launcher/proc-tree.ts";
import { reap } from "../../src/launcher/reaper.ts";
import { startServer } from "../../src/launcher/server.ts";
import { tempDir } from "../helpers.ts";
import { env, gone, pidsIn } from "./support.ts";

function server(script: string, cwd: string) {
  const s = startServer({ argv: ["/bin/sh", "-c", script], env: env(), cwd, redactor: (x) => new StreamRedactor(x) });
  if (!s.ok) throw new Error(s.refusal.message);
  return s.value;
}

describe("reap", () => {
  test("a server that ignores stdin's close and TERM is killed after the grace, with a grandchild in a session of its own", async () => {
    await using dir = tempDir();
    const pids = join(dir.path, "pids");
    // The grandchild leaves the session (setsid); the server ignores TERM and never reads stdin.
    const child = server(
      `trap '' TERM; setsid sleep 300 & echo $! >> ${pids}; echo $$ >> ${pids}; exec sleep 300`,
      dir.path,
    );
    const [grandchild, root] = await pidsIn(pids, 2);
    const order = child.handOff(400);
    expect(order).not.toBeNull();
    expect(order!.tree.root).toBe(root!);
    const t0 = performance.now();
    await reap([order!]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(350);
    expect([gone(root!), gone(grandchild!)]).toEqual([true, true]);
  });

  test("a server that leaves when its stdin closes is not waited for to the end of the grace", async () => {
    await using dir = tempDir();
    const child = server("cat >/dev/null", dir.path);
    const order = child.handOff(30_000);
    const t0 = performance.now();
    if (order) await reap([order]);
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(gone(child.pid)).toBe(true);
  });
});

describe("ProcessTree.resume", () => {
  test("a session or group id whose pid now belongs to another process is not the tree's", async () => {
    await using dir = tempDir();
    const other = server("exec sleep 300", dir.path);
    try {
      const start = readStat(other.pid)!.start;
      const snap = (s: number) => ({
        root: other.pid,
        known: [],
        sids: [[other.pid, s]] as [number, number][],
        pgids: [[other.pid, s]] as [number, number][],
        spread: false,
      });
      // The same pid with another start time: a process that came after the tree was handed over.
      const reused = ProcessTree.resume(snap(start - 1));
      expect([reused.anyLive(), reused.signal("SIGKILL").length]).toEqual([false, 0]);
      expect(gone(other.pid)).toBe(false);
      expect(ProcessTree.resume(snap(start)).anyLive()).toBe(true);
    } finally {
      await other.shutdown(0);
    }
  });
});
