// Ending a call tree whose supervisor died (kill -9, OOM): every launched child leads its own
// session (launch.ts, setsid), and a task's row keeps each live child's pid and start time. Whoever
// finds the supervisor gone ends that session's processes here, before marking the task lost.
// A row is not proof (nothing read back from the state folder acts on the host
// without a check): only a process that carries the task's mark in its environment is signalled.
import { hostPlatform } from "../platform/host.ts";
import { isLive, readStat, scan, type ProcStat } from "./proc-tree.ts";

/**
 * The variable the launcher sets in a task's children (a random value per supervisor). Only this
 * user (and root) can read another process's environment, and an unrelated process never has it.
 */
export const TASK_MARK_VAR = "TOOLGATE_TASK_MARK";
const TAG = /^[0-9a-f]{32}$/;

/** Rounds of scan + KILL: a member forking between a scan and its kill is caught by the next one. */
const ROUNDS = 8;

export interface TreeMark {
  readonly pid: number;
  /** The leader's start time (clock ticks since boot), null when it was not readable at spawn. */
  readonly start: number | null;
  /** The task's mark, set as TASK_MARK_VAR in the environment of what the supervisor started. */
  readonly tag?: string;
}

/**
 * Whether process `pid` was started with TASK_MARK_VAR=tag (read from /proc/PID/environ, which only
 * its user can read). Without a process table (not Linux) no process can show it: none is ended.
 */
export function carriesMark(pid: number, tag: string): boolean {
  const env = hostPlatform().processes?.environ(pid) ?? null;
  if (env === null) return false;
  return `\0${env}${env.endsWith("\0") ? "" : "\0"}`.includes(`\0${TASK_MARK_VAR}=${tag}\0`);
}

/**
 * Why this and not a watchdog: Bun cannot set PR_SET_PDEATHSIG on a child, and a watchdog process
 * per task would cost every `call --background` a second start and could be killed with the
 * supervisor (kill of its group). The row is the record every reader already consults; ending the
 * tree where the task turns lost needs nothing running, and happens on the first read after.
 *
 * Which processes: those whose session id is the leader's pid. The kernel does not reuse a pid
 * while any process still has it as its session id, so a live process of session P is of our
 * session unless the whole session ended, P was given to a new process and that one made its own
 * session. That is refused by the leader check: a live process at P whose start time differs from
 * the mark is another process, and nothing is killed. (What remains: that newcomer also ended
 * before the read, leaving its own members; and a member that left the session with setsid is not
 * found. Both are beyond what /proc can tell without the supervisor's memory of the tree.)
 * SIGKILL at once: the supervisor, which would have granted a TERM's grace, is gone, and the
 * reader (`tasks status`) should not wait.
 *
 * The mark comes from a row of the state database, which is not proof: pid, start time and the
 * task's mark in the process's own environment must all match, for the leader and for each member
 * (a forged row naming an unrelated process, its start time right, signals nothing). A member that
 * dropped its environment is left running: never signalling a stranger comes first.
 */
export function endOrphanSession(mark: TreeMark, list: () => ProcStat[] | null = scan): number {
  const { pid, start, tag } = mark;
  if (!Number.isSafeInteger(pid) || pid <= 1 || typeof start !== "number" || typeof tag !== "string" || !TAG.test(tag))
    return 0;
  const leader = readStat(pid);
  if (leader && isLive(leader) && (leader.start !== start || !carriesMark(pid, tag))) return 0;
  let signalled = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const members = (list() ?? []).filter(
      (p) => p.sid === pid && isLive(p) && p.pid !== process.pid && p.start >= start && carriesMark(p.pid, tag),
    );
    if (members.length === 0) break;
    for (const p of members) {
      try {
        process.kill(p.pid, "SIGKILL");
        signalled++;
      } catch {
        // Gone between the scan and the kill.
      }
    }
  }
  return signalled;
}
