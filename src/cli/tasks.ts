// `toolgate tasks list|status|logs|cancel|wait|prune`: the operator's view of background tasks in
// this lane (--lane; `list --all` every lane). Ids may be abbreviated to a unique prefix. Reading
// a task whose supervisor is gone turns it `lost` (tasks.ts reconcile).
import { defineCommand } from "citty";
import { usageError } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import { note } from "../result/human.ts";
import { pruneTasks } from "../state/tasks.ts";
import { superviseTask } from "../tasks/supervise.ts";
import { find, missing, parseAge, parseTimeout } from "../tasks/operator.ts";
import type { RunContext } from "./context.ts";
import { bool, str } from "./flags.ts";
import { hasJournal, openJournal, openWorkspace } from "./open.ts";
import { cancel, list, logs, show, wait } from "./tasks-actions.ts";
import { outputWidth } from "./ui.ts";

export default defineCommand({
  meta: {
    name: "tasks",
    description:
      "Background tasks (call --background): list [--all], status ID, logs ID [--follow], cancel ID, wait ID " +
      "[--timeout S] (exits with the task's code; 124 on timeout), prune [--older-than 7d]",
  },
  args: {
    action: {
      type: "positional",
      description: "list | status | logs | cancel | wait | prune",
      required: false,
      complete: ["list", "status", "logs", "cancel", "wait", "prune"],
    },
    id: { type: "positional", description: "Task id or a unique prefix of it", required: false },
    all: { type: "boolean", description: "list: every lane's tasks, not only this lane's" },
    follow: { type: "boolean", description: "logs: keep printing until the task ends" },
    timeout: { type: "string", description: "wait: give up after S seconds (exit 124)", valueHint: "S" },
    "older-than": {
      type: "string",
      description: "prune: remove ended tasks older than this (30m, 12h, 7d; default 7d)",
      valueHint: "D",
    },
    "state-dir": {
      type: "string",
      description: "supervise (internal, started by call --background): the state folder the task is journaled in",
      valueHint: "DIR",
    },
  },
});

export async function runTasks(ctx: RunContext): Promise<number> {
  const s = ctx.flags;
  const [action = "list", id, ...extra] = s.positionals;
  if (extra.length > 0) throw usageError(`unexpected argument "${extra[0]}"`);
  // The detached supervisor: started only by `call --background`, with the state folder it chose.
  if (action === "supervise") {
    const dir = str(s, "state-dir");
    if (id === undefined || dir === undefined) throw usageError("tasks supervise is started by call --background");
    return await superviseTask(id, dir, ctx.env);
  }
  const lane = str(s, "lane") ?? "default";
  const needsId = ["status", "logs", "cancel", "wait"];
  const actions = ["list", "prune", ...needsId];
  if (!actions.includes(action))
    throw usageError(
      `unknown tasks action "${action}"${didYouMean(nearest(action, actions))}`,
      "toolgate tasks list | status ID | logs ID [--follow] | cancel ID | wait ID [--timeout S] | prune " +
        "[--older-than D]",
    );
  if (needsId.includes(action) && id === undefined)
    throw usageError(`tasks ${action} needs a task id (or a unique prefix)`, "toolgate tasks list shows them");
  const timeoutMs = parseTimeout(str(s, "timeout"));
  const olderMs = parseAge(str(s, "older-than") ?? "7d");
  const { config } = await openWorkspace(ctx, s, true);
  // Reading never creates a state folder.
  if (!hasJournal(config)) return action === "list" || action === "prune" ? 0 : missing(id!);
  const db = openJournal(config, "the tasks cannot be read", action === "cancel" || action === "prune");
  const json = bool(s, "json") || !ctx.stdoutIsTTY;
  try {
    if (action === "list") return list(db, bool(s, "all") ? null : lane, json, outputWidth(ctx));
    if (action === "prune") {
      const n = pruneTasks(db, Date.now() - olderMs, bool(s, "all") ? null : lane);
      note(`removed ${n} ended task${n === 1 ? "" : "s"}`);
      return 0;
    }
    const found = find(db, id!, lane);
    if (action === "status") return show(found, json);
    if (action === "logs") return await logs(db, found, lane, bool(s, "follow"), ctx.stdoutIsTTY);
    if (action === "cancel") return await cancel(db, found, lane, json);
    return await wait(db, found, lane, timeoutMs, json);
  } finally {
    db.close();
  }
}
