// Ending a call tree whose supervisor died (kill -9, OOM): every launched child leads its own
// session (launch.ts, setsid), and a task's row keeps each live child's pid and start time. Whoever
// finds the supervisor gone ends that session's processes here, before marking the task lost.
import { isLive, readStat, scan, type ProcStat } from "./proc-tree.ts";

/** Rounds of scan + KILL: a member forking between a scan and its kill is caught by the next one. */
const ROUNDS = 8;

export interface TreeMark {
  readonly pid: number;
  /** The leader's start time (clock ticks since boot), null when it was not readable at spawn. */
  readonly start: number | null;
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
 */
export function endOrphanSession(mark: TreeMark, list: () => ProcStat[] | null = scan): number {
  const leader = readStat(mark.pid);
  if (leader && isLive(leader) && (mark.start === null || leader.start !== mark.start)) return 0;
  let signalled = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const members = (list() ?? []).filter((p) => p.sid === mark.pid && isLive(p) && p.pid !== process.pid && (mark.start === null || p.start >= mark.start));
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
