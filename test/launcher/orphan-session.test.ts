// Ending a dead supervisor's call tree by its mark: the session the leader made is killed, its
// members too; a live process at the pid with another start time (pid reuse) is left alone, and
// so is everything outside the session, and every process that does not carry the task's tag.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { endOrphanSession, TASK_MARK_VAR } from "../../src/launcher/orphan-session.ts";
import { readStat } from "../../src/launcher/proc-tree.ts";
import { waitFor } from "../support/wait.ts";

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

const TAG = "0123456789abcdef0123456789abcdef";

/** A session leader (setsid, as the launcher starts every child) with two children, carrying `tag` as a task's children do. */
async function tree(tag: string | null = TAG) {
  const env = { PATH: "/usr/bin:/bin", ...(tag === null ? {} : { [TASK_MARK_VAR]: tag }) };
  const proc = Bun.spawn(["bash", "-c", "sleep 300 & sleep 301 & wait"], {
    detached: true,
    env,
    stdout: "ignore",
    stderr: "ignore",
  });
  await waitFor("the session's three processes", () => session(proc.pid).length === 3);
  return proc;
}

describe("endOrphanSession", () => {
  test("kills the leader's session (leader and members) when the mark matches; leaves others", async () => {
    const other = await tree();
    const t = await tree();
    try {
      const members = session(t.pid);
      expect(endOrphanSession({ pid: t.pid, start: readStat(t.pid)!.start, tag: TAG })).toBeGreaterThanOrEqual(3);
      await waitFor("the session's members to be gone", () => members.every((p) => !live(p)));
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
      expect(endOrphanSession({ pid: t.pid, start: start - 1, tag: TAG })).toBe(0);
      expect(endOrphanSession({ pid: t.pid, start: null, tag: TAG })).toBe(0);
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
    expect(endOrphanSession({ pid: t.pid, start, tag: TAG })).toBeGreaterThanOrEqual(2);
    await waitFor("the session's members to be gone", () => members.every((p) => !live(p)));
  });

  test("pid and start time right, but no tag, another tag, or a process without it: nothing is killed", async () => {
    const stranger = await tree(null);
    const t = await tree();
    try {
      const mark = (pid: number) => ({ pid, start: readStat(pid)!.start });
      expect(endOrphanSession(mark(t.pid))).toBe(0);
      expect(endOrphanSession({ ...mark(t.pid), tag: "f".repeat(32) })).toBe(0);
      expect(endOrphanSession({ ...mark(t.pid), tag: "not hex" })).toBe(0);
      expect(endOrphanSession({ ...mark(stranger.pid), tag: TAG })).toBe(0);
      expect([session(t.pid).length, session(stranger.pid).length]).toEqual([3, 3]);
    } finally {
      process.kill(-stranger.pid, "SIGKILL");
      process.kill(-t.pid, "SIGKILL");
    }
  });

  test("with the leader gone, a member of its session without the tag is left alone", async () => {
    const t = await tree(null);
    const start = readStat(t.pid)!.start;
    const members = session(t.pid).filter((p) => p !== t.pid);
    process.kill(t.pid, "SIGKILL");
    await t.exited;
    try {
      expect(endOrphanSession({ pid: t.pid, start, tag: TAG })).toBe(0);
      expect(members.every(live)).toBe(true);
    } finally {
      for (const p of members) process.kill(p, "SIGKILL");
    }
  });
});
