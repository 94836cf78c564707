// What the foreground admitted for a background call, kept in the task row for its supervisor:
// the validated arguments, each permission need with the value it was granted as, how it was
// approved, the boot's inputs and the digests they produced. The supervisor asks nobody and
// re-checks it all against the same config and tool digests: it can run exactly this, nothing wider.
import type { PermissionGate } from "../runtime/invoke.ts";
import type { BootInput } from "../runtime/boot.ts";
import type { Check, Need } from "../permission/types.ts";
import type { Prompter } from "../permission/prompt.ts";
import { serverOf } from "../catalog/origin.ts";
import type { StoredBoot, TaskRequest } from "../runtime/background.ts";

export { storedBoot, type StoredBoot, type TaskRequest } from "../runtime/background.ts";

export function bootFrom(
  s: StoredBoot,
  env: BootInput["env"],
  req: Pick<TaskRequest, "tool" | "grants" | "origin">,
): BootInput {
  return {
    cwd: s.cwd,
    env,
    configFlag: s.configFlag,
    workspaceFlag: s.workspaceFlag,
    scratchFlag: s.scratchFlag,
    permissionFlags: s.permissionFlags,
    allowLocalPaths: [...s.allowLocalPaths],
    pins: new Map(s.pins),
    requireRails: s.requireRails,
    interactive: false,
    answers: admittedAnswers(req),
    call: req.tool,
  };
}

/**
 * Where the foreground asked (a server's start, say: its own gate, not the call's), the
 * supervisor's boot answers yes to exactly a need the foreground granted, with the value it was
 * granted as, asked for this tool or its own server's start: never "all" (A), so nothing else is
 * granted by it; a changed value (a symlink now leading elsewhere) or another server is a no.
 */
export function admittedAnswers(task: Pick<TaskRequest, "tool" | "grants" | "origin">): Prompter {
  const server = serverOf(task.origin);
  const reasons = new Set([task.tool, ...(server === undefined ? [] : [`mcp.connect:${server}`])]);
  return (req) =>
    reasons.has(req.reason) &&
    task.grants.some((g) => g.need.kind === req.kind && (g.value ?? g.need.value) === req.value)
      ? "y"
      : "n";
}

const sameNeed = (a: Need, b: Need) =>
  a.kind === b.kind && a.value === b.value && (a.recursive === true) === (b.recursive === true);

/**
 * The supervisor's permission stage: this boot's gate (same flags, same config, nobody to ask),
 * and for a need it would refuse only what the foreground granted for this very need (a prompt's
 * yes), with the value it was granted as. Never a need the foreground did not check.
 */
export function admittedGate(inner: PermissionGate, grants: TaskRequest["grants"]): PermissionGate {
  return {
    check(need, reason, detail) {
      const settle = (r: Check): Check => {
        if (r.ok) return r;
        const g = grants.find((x) => sameNeed(x.need, need));
        return g ? { ok: true, ...(g.value === undefined ? {} : { value: g.value }) } : r;
      };
      const r = inner.check(need, reason, detail);
      return r instanceof Promise ? r.then(settle) : settle(r);
    },
  };
}
