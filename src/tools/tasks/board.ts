// What the model-facing task controls share: task_list, task_status,
// task_control (cancel only) and yield_until, one file each beside this one, over this lane's
// background tasks. Bounded payloads without owner, write scope, metadata or raw logs; another
// lane's id answers like a missing one.
import type { TaskBoard } from "../../catalog/declare.ts";
import { refuse } from "../../result/result.ts";

export const LIST_LIMIT = 50;
/**
 * yield_until's longest wait is the config's tasks.yield_cap_secs (DEFAULT_YIELD_CAP_SECS unless
 * set); the schema takes up to YIELD_MAX_SECS, the config's own bound, below the call deadline
 * (300 s) so a yield never turns into one. A longer timeout waits the cap.
 */
export const YIELD_MAX_SECS = 290;
export const DEFAULT_YIELD_CAP_SECS = 240;
export const YIELD_POLL_MS = 100;
export const FINAL = new Set(["succeeded", "failed", "cancelled", "lost", "indeterminate"]);

export function board(ctx: { tasks?: () => TaskBoard }): TaskBoard | null {
  return ctx.tasks ? ctx.tasks() : null;
}
export const noBoard = () => refuse("task.unavailable", "background tasks are not kept in this session");
