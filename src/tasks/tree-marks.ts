// The marks (pid + start time + the task's tag) of a running task's call trees, kept in its row
// while they run, so that whoever finds the supervisor gone can end what it left behind
// (state/tasks.ts reconcile, launcher/orphan-session.ts). The launcher starts each child as the
// leader of its own session, with the tag in its environment: a row alone never names a process
// to signal, the process must carry the tag too (only this supervisor chose it).
import type { Database } from "bun:sqlite";
import { randomHex } from "../launcher/artifacts.ts";
import type { TreeMark } from "../launcher/orphan-session.ts";
import { readStat } from "../launcher/proc-tree.ts";
import type { LaunchWatch } from "../launcher/types.ts";
import { recordTrees } from "../state/tasks.ts";

export function treeMarks(db: Database, id: string): Required<Pick<LaunchWatch, "spawned" | "ended" | "mark">> {
  const tag = randomHex();
  const live = new Map<number, TreeMark>();
  const save = () => {
    try {
      recordTrees(db, id, [...live.values()]);
    } catch {
      // A hook must not fail the run; the supervisor's own end still ends the tree.
    }
  };
  return {
    mark: tag,
    spawned(pid) {
      live.set(pid, { pid, start: readStat(pid)?.start ?? null, tag });
      save();
    },
    ended(pid) {
      if (live.delete(pid)) save();
    },
  };
}
