// The model's view of a lane's background tasks (the task tools' TaskBoard, catalog/declare.ts):
// bounded projections of the rows, the stored (post-boundary) result, and a short log tail that
// passes the output boundary. Apart from the rows (tasks.ts) and their logs (task-logs.ts): this is
// what a model may be shown of them, not how they are kept.
import type { Database } from "bun:sqlite";
import type { ModelTask, TaskBoard } from "../catalog/declare.ts";
import { checkBoundary, type BoundaryOptions } from "../boundary/boundary.ts";
import { findTask, listTasks, requestCancel, type Clock, type TaskRow } from "./tasks.ts";
import { readLogs } from "./task-logs.ts";

const MODEL_SUMMARY_CHARS = 300;
const MODEL_RESULT_CHARS = 8_000;
const MODEL_TAIL_CHARS = 2_000;

export const modelTask = (r: TaskRow): ModelTask => ({
  task_id: r.id,
  kind: r.kind,
  tool: r.source_tool,
  status: r.status,
  summary: r.summary === null ? null : r.summary.slice(0, MODEL_SUMMARY_CHARS),
  created_ms: r.created_ms,
  ended_ms: r.ended_ms,
});

/**
 * The end of a task's log as the model may see it: the last MODEL_TAIL_CHARS from a token's start
 * (never half a path), checked at the output boundary with the rules of the tool that wrote it
 * (an authored tool's stderr is held to the local-path rule as its result is); null when it breaks one.
 */
export function modelTail(log: string, rules: BoundaryOptions): string | null {
  let tail = log.slice(-MODEL_TAIL_CHARS);
  if (tail.length < log.length && !/\s/.test(log.charAt(log.length - tail.length - 1))) tail = tail.replace(/^\S*/, "");
  return checkBoundary(tail, rules) === null ? tail : null;
}

/**
 * The model's view of the lane's tasks: bounded projections, the stored (post-boundary) result, a
 * short log tail past the boundary with `rules` of its tool (default: every rule, local paths too).
 */
export function taskBoard(
  db: Database,
  clock: Clock = { now: Date.now },
  rules: (tool: string) => BoundaryOptions = () => ({ localPaths: true }),
): TaskBoard {
  return {
    list: (lane, limit) => listTasks(db, lane, limit, clock).map(modelTask),
    get: (lane, id) => {
      const f = findTask(db, id, lane, clock);
      if (!f.ok) return f;
      const r = f.row;
      const result =
        r.result === null
          ? null
          : r.result.length > MODEL_RESULT_CHARS
            ? { truncated: true, chars: r.result.length }
            : (JSON.parse(r.result) as unknown);
      const log = readLogs(db, r.id)
        .map((c) => c.text)
        .join("");
      return { ok: true, task: modelTask(r), result, logTail: modelTail(log, rules(r.source_tool)) };
    },
    cancel: (lane, id) => {
      const f = findTask(db, id, lane, clock);
      return f.ok && requestCancel(db, f.row.id);
    },
  };
}
