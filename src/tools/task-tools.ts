// The model-facing task controls (seed: Model task tools): task_list, task_status, task_control
// (cancel only) and yield_until, over this lane's background tasks. Bounded payloads without owner,
// write scope, metadata or raw logs; another lane's id answers like a missing one.
import { defineTool, type TaskBoard, type ToolContext } from "../catalog/declare.ts";
import { refuse, type Outcome } from "../result/result.ts";

const LIST_LIMIT = 50;
/**
 * yield_until's longest wait is the config's tasks.yield_cap_secs (DEFAULT_YIELD_CAP_SECS unless
 * set); the schema takes up to YIELD_MAX_SECS, the config's own bound, below the call deadline
 * (300 s) so a yield never turns into one. A longer timeout waits the cap.
 */
export const YIELD_MAX_SECS = 290;
export const DEFAULT_YIELD_CAP_SECS = 240;
const YIELD_POLL_MS = 100;
const FINAL = new Set(["succeeded", "failed", "cancelled", "lost", "indeterminate"]);

function board(ctx: { tasks?: () => TaskBoard }): TaskBoard | null {
  return ctx.tasks ? ctx.tasks() : null;
}
const noBoard = () => refuse("task.unavailable", "background tasks are not kept in this session");

export const taskList = defineTool({
  name: "task_list",
  description: "This lane's background tasks, newest first (at most 50): id, kind, tool, status, a short summary, created/ended times.",
  input: (type) => type({ "+": "reject" }),
  effect: "read",
  approval: "never",
  needs: () => ({ ok: true, value: [] }),
  handler: async (_args, ctx) => {
    const b = board(ctx);
    if (!b) return noBoard();
    return { ok: true, value: { tasks: b.list(ctx.lane, LIST_LIMIT) } };
  },
});

export const taskStatus = defineTool({
  name: "task_status",
  description: "One background task of this lane by id (or a unique prefix): status, summary, its result once ended (bounded) and the end of its log.",
  input: (type) => type({ "+": "reject", task_id: "string <= 64" }),
  effect: "read",
  approval: "never",
  needs: () => ({ ok: true, value: [] }),
  handler: async (args, ctx) => {
    const b = board(ctx);
    if (!b) return noBoard();
    const r = b.get(ctx.lane, args.task_id);
    if (!r.ok) return refuse(r.code, r.message);
    return { ok: true, value: { ...r.task, result: r.result, log_tail: r.logTail } };
  },
});

export const taskControl = defineTool({
  name: "task_control",
  description: 'Control a background task of this lane. Only command "cancel" is supported: it ends the task\'s whole process tree; yield_until waits for the final status.',
  input: (type) => type({ "+": "reject", task_id: "string <= 64", command: "string <= 32" }),
  effect: "irreversible",
  approval: "never",
  needs: () => ({ ok: true, value: [] }),
  handler: async (args, ctx) => {
    if (args.command !== "cancel") return refuse("task.unsupported_command", `task_control supports only command "cancel" (got ${JSON.stringify(args.command)})`);
    const b = board(ctx);
    if (!b) return noBoard();
    const found = b.get(ctx.lane, args.task_id);
    if (!found.ok) return refuse(found.code, found.message);
    const asked = b.cancel(ctx.lane, found.task.task_id);
    return { ok: true, value: { task_id: found.task.task_id, cancel_requested: asked, status: found.task.status } };
  },
});

export const yieldUntil = defineTool({
  name: "yield_until",
  description: `Wait until one (mode "any", the default) or all (mode "all") of the given background tasks of this lane have ended, or timeout_secs pass (default 30; a longer wait than the configured cap, ${DEFAULT_YIELD_CAP_SECS} s unless set, waits the cap). Returns each task's status, whether the wait timed out, and the seconds it was allowed.`,
  input: (type) => type({ "+": "reject", task_ids: "1 <= string[] <= 20", "mode?": "'any' | 'all'", "timeout_secs?": `0 <= number <= ${YIELD_MAX_SECS}` }),
  effect: "read",
  approval: "never",
  needs: () => ({ ok: true, value: [] }),
  handler: async (args, ctx) => {
    const cap = ((ctx.config?.tasks ?? {}) as { yield_cap_secs?: number }).yield_cap_secs ?? DEFAULT_YIELD_CAP_SECS;
    return waitFor(args.task_ids, args.mode ?? "any", Math.min(args.timeout_secs ?? 30, cap), ctx);
  },
});

async function waitFor(ids: readonly string[], mode: "any" | "all", secs: number, ctx: ToolContext): Promise<Outcome<unknown>> {
  const b = board(ctx);
  if (!b) return noBoard();
  const until = ctx.now() + secs * 1000;
  for (;;) {
    const tasks = [];
    for (const id of ids) {
      const r = b.get(ctx.lane, id);
      if (!r.ok) return refuse(r.code, r.message);
      tasks.push(r.task);
    }
    const ended = tasks.filter((t) => FINAL.has(t.status)).length;
    const done = mode === "any" ? ended > 0 : ended === tasks.length;
    if (done || ctx.now() >= until || ctx.signal.aborted) return { ok: true, value: { timed_out: !done, waited_at_most_secs: secs, tasks } };
    await new Promise((res) => setTimeout(res, Math.min(YIELD_POLL_MS, Math.max(1, until - ctx.now()))));
  }
}
