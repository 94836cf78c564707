// apply_change: the one writer of a write child's change into the checkout (three-way per file,
// all or nothing), or its discard. Either way what the change kept (its git folder) is removed and
// the change cannot be applied again. Offered only when delegation.worktree_root is set.
import { defineTool, type ToolContext } from "../../catalog/declare.ts";
import type { Code } from "../../result/codes.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";
import { git } from "../gates/copy.ts";
import { planApply, prepareFolders, writePlan } from "./apply.ts";
import { readChange, removeChange, writeChange, type ChangeRecord } from "./change.ts";
import { delegationOf } from "./task.ts";
import description from "./apply-change.txt" with { type: "text" };

export default defineTool({
  name: "apply_change",
  description: description.trimEnd(),
  input: (type) => type({ "+": "reject", change_id: "string", "discard?": "boolean" }),
  effect: "irreversible",
  approval: "required",
  ownDeadline: true,
  // It writes the checkout: the workspace's write grant (--allow-write) is asked for.
  needs: (_args, ctx) => ({ ok: true, value: [{ kind: "write", value: ctx.workspace, recursive: true }] }),
  handler: (args, ctx) => applyChange(args.change_id, args.discard === true, ctx),
});

/** The refusal of a change that is not ready, by its status; a record toolgate did not write is an unknown change. */
const NOT_READY = {
  running: "change.running",
  applied: "change.applied",
  discarded: "change.discarded",
} as const satisfies Record<Exclude<ChangeRecord["status"], "ready">, Code>;

async function applyChange(id: string, discard: boolean, ctx: ToolContext): Promise<Outcome<unknown>> {
  const root = delegationOf(ctx).root;
  if (root === null) return refuse("change.unconfigured", "delegation.worktree_root is not set");
  const rec = readChange(root, id);
  if (rec === null)
    return refuse(
      "change.unknown",
      `no change ${JSON.stringify(id)} under ${root}: a change_id is what a write task returned (16 hex digits)`,
      { change_id: id },
    );
  if (rec.status !== "ready") {
    const why =
      rec.status === "running"
        ? "its write child is still working"
        : `it was already ${rec.status}; a change is applied or discarded once`;
    return refuse(
      Object.hasOwn(NOT_READY, rec.status) ? NOT_READY[rec.status] : "change.unknown",
      `change ${id} cannot be applied or discarded: ${why}`,
      { change_id: id, status: rec.status },
    );
  }
  if (discard) {
    writeChange(root, { ...rec, status: "discarded" });
    const removed = removeChange(rec);
    await git(ctx.processes, rec.top, ["worktree", "prune"]);
    return ok({ change_id: id, status: "discarded", worktree_removed: removed });
  }
  if (rec.git_dir === undefined || rec.change === undefined) {
    return refuse(
      "change.outdated",
      `change ${id} was kept by an earlier toolgate, which read it with git inside the child's own tree; it ` +
        `is not applied. Discard it with {"change_id": "${id}", "discard": true} and run the task again`,
      { change_id: id },
    );
  }
  // The worktree root holds the change records: never written through a change, wherever it lies.
  const scope = { workspace: ctx.workspace, stateDir: ctx.stateDir, controlFiles: [...(ctx.controlFiles ?? []), root] };
  const planned = await planApply(ctx.processes, { ...rec, git_dir: rec.git_dir, change: rec.change }, scope);
  if (!planned.ok) return planned;
  const plan = planned.value;
  try {
    const ready = prepareFolders(plan);
    if (!ready.ok) return ready;
    // Marked applied before the first write: a crash mid-write must not let the same change apply twice.
    writeChange(root, { ...rec, status: "applied" });
    const done = writePlan(plan);
    const removed = removeChange(rec);
    if (done.failed) {
      const left = plan.files.map((f) => f.path).filter((f) => !done.written.includes(f));
      return refuse(
        "change.incomplete",
        `the change was applied only in part: writing "${done.failed.path}" failed (${done.failed.code}: ` +
          `${done.failed.message}); written: ${done.written.join(", ") || "none"}; not written: ${left.join(", ")}`,
        { written: done.written, not_written: left },
      );
    }
    return ok({
      change_id: id,
      status: "applied",
      files: plan.files.map((f) => ({ path: f.path, how: f.bytes === null ? "deleted" : f.how })),
      unchanged: rec.files.length - plan.files.length,
      worktree_removed: removed,
    });
  } finally {
    plan.folders.close();
  }
}
