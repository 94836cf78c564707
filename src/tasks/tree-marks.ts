// The marks (pid + start time) of a running task's call trees, kept in its row while they run, so
// that whoever finds the supervisor gone can end what it left behind (state/tasks.ts reconcile,
// launcher/orphan-session.ts). The launcher starts each child as the leader of its own session.
import type { Database } from "bun:sqlite";
import { readStat } from "../launcher/proc-tree.ts";
import type { LaunchWatch } from "../launcher/types.ts";
import type { ProcessMark } from "../state/journal.ts";
import { recordTrees } from "../state/tasks.ts";

export function treeMarks(db: Database, id: string): Required<Pick<LaunchWatch, "spawned" | "ended">> {
  const live = new Map<number, ProcessMark>();
  const save = () => {
    try {
      recordTrees(db, id, [...live.values()]);
    } catch {
      // A hook must not fail the run; the supervisor's own end still ends the tree.
    }
  };
  return {
    spawned(pid) {
      live.set(pid, { pid, start: readStat(pid)?.start ?? null });
      save();
    },
    ended(pid) {
      if (live.delete(pid)) save();
    },
  };
}
