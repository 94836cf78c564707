// Ending a dead supervisor's call tree by its mark: the session the leader made is killed, its
// members too; a live process at the pid with another start time (pid reuse) is left alone, and
// so is everything outside the session.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { endOrphanSession } from "../../src/launcher/orphan-session.ts";
import { readStat } from "../../src/launcher/proc-tree.ts";

const live = (pid: number) => {
  const s = readStat(pid);
  return s !== null && s.state !== "Z";
};
const session = (sid: number) => {
  const out: number[] = [];
  for (const p of new Bun.Glob("[0-9]*").scanSync({ cwd: "/proc", onlyFiles: false })) {
    const s = readStat(Number(p));
    if (s && s.sid === sid && s.state !== "Z") out.push(s.pid);
  }
  return out;
};

async function until(cond: () => boolean, ms = 5_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await Bun.sleep(10);
  }
}

/** A session leader (setsid, as the launcher starts every child) with two children. */
async function tree() {
  const proc = Bun.spawn(["bash", "-c", "sleep 300 & sleep 301 & wait"], { detached: true, stdout: "ignore", stderr: "ignore" });
  await until(() => session(proc.pid).length === 3);
  return proc;
}

describe("endOrphanSession", () => {
  test("kills the leader's session (leader and members) when the mark matches; leaves others", async () => {
    const other = await tree();
    const t = await tree();
    try {
      const members = session(t.pid);
      expect(endOrphanSession({ pid: t.pid, start: readStat(t.pid)!.start })).toBeGreaterThanOrEqual(3);
      await until(() => members.every((p) => !live(p)));
      expect(session(other.pid).length).toBe(3);
    } finally {
      process.kill(-other.pid, "SIGKILL");
      process.kill(-t.pid, "SIGKILL");
    }
  });

  test("a live process at the pid with another start time is another process: nothing is killed", async () => {
    const t = await tree();
    try {
      const start = readStat(t.pid)!.start;
      expect(endOrphanSession({ pid: t.pid, start: start - 1 })).toBe(0);
      expect(endOrphanSession({ pid: t.pid, start: null })).toBe(0);
      expect(session(t.pid).length).toBe(3);
    } finally {
      process.kill(-t.pid, "SIGKILL");
    }
  });

  test("with the leader gone, the members still in its session are ended", async () => {
    const t = await tree();
    const start = readStat(t.pid)!.start;
    const members = session(t.pid).filter((p) => p !== t.pid);
    // Only the leader dies (as if killed alone); its children stay in session t.pid.
    process.kill(t.pid, "SIGKILL");
    await t.exited;
    expect(members.every(live)).toBe(true);
    expect(readFileSync(`/proc/${members[0]}/stat`, "utf8")).toContain(` ${t.pid} `);
    expect(endOrphanSession({ pid: t.pid, start })).toBeGreaterThanOrEqual(2);
    await until(() => members.every((p) => !live(p)));
  });
});
