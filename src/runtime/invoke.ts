// The call pipeline, written once: resolve → validate → profile → permissions → approval →
// secrets → adapter under a deadline → boundary → classify → journal. Nothing reaches the adapter
// before steps 3-5 pass and its journal row is written (started); the same row is finished after.
// Each step is a function of its own (stages.ts, call-run.ts, call-record.ts): this file is the order.
import type { ToolContext } from "../catalog/declare.ts";
import { approve, approvedOutright } from "../approval/approval.ts";
import { argsForApproval } from "../boundary/redact.ts";
import { dryRunReport } from "./missing-grants.ts";
import type { InvokeDeps, Invoked } from "./call-types.ts";
import { CallRecord } from "./call-record.ts";
import { CallRun } from "./call-run.ts";
import { permit, profileRefusal, unknownTool, validate } from "./stages.ts";

export type { Admitted, GateResult, InvokeDeps, Invoked, PermissionGate, Profile } from "./call-types.ts";
export { boundaryFor } from "./stages.ts";

export async function invoke(name: string, args: unknown, deps: InvokeDeps): Promise<Invoked> {
  const entry = deps.catalog.entries.get(name);
  const rec = new CallRecord(name, entry, args, deps);
  // 1. resolve from this boot's catalog (never a second lookup by name)
  if (!entry)
    return rec.failed(deps.unknown?.(name) ?? unknownTool(name, deps.callable?.() ?? deps.catalog.entries.keys()));
  const pinned = deps.refused?.get(name) ?? deps.refusedNow?.(name);
  if (pinned) return rec.failed(pinned);
  // 2. validate
  // (Answered at once when nothing is awaited: a plain call takes no extra turn here.)
  const checking = validate(entry, args);
  const valid = checking instanceof Promise ? await checking : checking;
  if (!valid.ok) return rec.failed(valid.refusal);
  const value = valid.value;
  // 3. profile
  const excluded = profileRefusal(deps.profile, name, value);
  if (excluded) return rec.failed(excluded);
  // 4. permissions (pure checks such as "stays inside the workspace" come with the needs)
  const needs = entry.adapter.needs(value, deps.scope);
  if (!needs.ok) return rec.failed(needs.refusal);
  const permitting = permit(entry, needs.value, deps);
  const permitted = permitting instanceof Promise ? await permitting : permitting;
  if ("refusal" in permitted) return rec.interrupted(deps.signal) ?? rec.failed(permitted.refusal);
  const { checked, grants, missing } = permitted;
  const given = () =>
    approvedOutright(entry, deps.approval) !== undefined || deps.approval.isRemembered(entry.name, entry.digest);
  if (deps.dryRun)
    return { envelope: { status: "success", tool: name, payload: dryRunReport(name, needs.value, missing, given()) } };
  if (missing.any)
    return rec.interrupted(deps.signal) ?? rec.failed(missing.refusal(given() ? undefined : `--approve=${name}`));
  // 5. approval: the prompt shows the whole arguments (made only when someone is asked), not the journal's preview.
  const approved =
    approvedOutright(entry, deps.approval) ??
    (await approve(entry, () => argsForApproval(value, rec.secrets()), deps.approval));
  if (!approved.ok) return rec.interrupted(deps.signal) ?? rec.failed(approved.refusal);
  const early = rec.interrupted(deps.signal);
  if (early) return early;
  if (deps.admit) {
    const a = deps.admit({ entry, value, grants, approvedBy: approved.value, preview: rec.preview(value) });
    return "task" in a
      ? { envelope: { status: "success", tool: name, payload: { task_id: a.task, status: "queued" } }, task: a.task }
      : rec.failed(a);
  }
  // Steps 3-5 passed: a source's own start (a server's, with its own row) may begin beside the call's row.
  const run = entry.adapter.begin?.() ?? ((a: unknown, c: ToolContext) => entry.adapter.run(a, c));
  // The write-ahead row, before the call's effect: a call killed from here on shows as indeterminate.
  deps.started(rec.row("started", null, 0, null), { approval: approved.value });
  // 6. secrets: only what the config binds to this tool's source (built-ins are bound none).
  // 7. the adapter, under a deadline and cancellation
  const ran = await new CallRun(entry, deps, rec).run(run, value, checked);
  if ("final" in ran) return rec.failed(ran.final);
  // 8. redact, the boundary, classify, journal
  return rec.settle(ran);
}
