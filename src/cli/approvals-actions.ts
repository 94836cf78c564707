// What `toolgate approvals list` and `revoke` do and show: the remembered approvals beside the
// catalog as it is now (current, changed, absent), or the ones forgotten.
import { escapeControl, jsonForTerminal } from "../result/escape.ts";
import { note } from "../result/human.ts";
import type { Booted } from "../runtime/boot.ts";
import { callerLabel } from "../serve/caller.ts";
import { answererOf, forgetApprovals, rememberedApprovals, type Remembered } from "../state/approvals.ts";
import type { RunContext } from "./context.ts";
import { bool, type Scanned } from "./flags.ts";
import { isGlob } from "./tools-filter.ts";
import { outputWidth, table, writeOut } from "./ui.ts";

/**
 * "current": the tool's digest now; "changed": it was asked again after a change (inert); "absent": not in this
 * catalog.
 */
function stateOf(booted: Booted, r: Remembered): "current" | "changed" | "absent" {
  const d = booted.catalog.entries.get(r.tool)?.digest;
  return d === undefined ? "absent" : d === r.digest ? "current" : "changed";
}

export function listApprovals(booted: Booted, dir: string, s: Scanned, ctx: RunContext): number {
  const all = bool(s, "all");
  const rows = rememberedApprovals(dir, all ? null : booted.workspace);
  // Another workspace's catalog is not this one's: its state is not known here.
  const here = rememberedApprovals(dir, booted.workspace)[0]?.workspace;
  const state = (r: Remembered) => (all && r.workspace !== here ? null : stateOf(booted, r));
  if (bool(s, "json") || !ctx.stdoutIsTTY) {
    if (rows.length) writeOut(rows.map((r) => jsonForTerminal({ ...r, state: state(r) })).join("\n"));
    return 0;
  }
  if (rows.length === 0) {
    writeOut(
      all ? "(no approval is remembered)" : `(no approval is remembered for ${escapeControl(booted.workspace)})`,
    );
    return 0;
  }
  // A served caller's (serve --http --oauth-issuer) are its own: a column names it when one is listed.
  const callers = rows.some((r) => answererOf(r) !== undefined);
  const who = (r: Remembered, c = answererOf(r)) => (callers ? [c ? callerLabel(c) : ""] : []);
  const out = [
    [...(all ? ["WORKSPACE"] : []), "TOOL", ...(callers ? ["CALLER"] : []), "DIGEST", "GRANTED", "STATE"],
    ...rows.map((r) => [
      ...(all ? [r.workspace] : []),
      r.tool,
      ...who(r),
      r.digest.slice(0, 12),
      new Date(r.granted_ms).toISOString(),
      state(r) ?? "",
    ]),
  ];
  writeOut(table(out, outputWidth(ctx), 0));
  if (rows.some((r) => state(r) === "changed"))
    note(
      "changed: the tool is not what was approved, so it is asked again; revoke the old approval with " +
        "toolgate approvals revoke TOOL",
    );
  return 0;
}

export function revokeApprovals(booted: Booted, dir: string, tool: string, s: Scanned, ctx: RunContext): number {
  const pick = isGlob(tool) ? (t: string) => new Bun.Glob(tool).match(t) : (t: string) => t === tool;
  const gone = forgetApprovals(dir, booted.workspace, pick);
  if (bool(s, "json") || !ctx.stdoutIsTTY)
    writeOut(
      jsonForTerminal({
        workspace: booted.workspace,
        tool,
        revoked: gone.map(({ workspace: _, granted_ms: __, ...r }) => r),
      }),
    );
  if (gone.length > 0) {
    note(
      `forgot ${gone.length} remembered approval${gone.length === 1 ? "" : "s"} in ${booted.workspace}: ` +
        `${[...new Set(gone.map((r) => r.tool))].join(", ")}; ` +
        `${gone.length === 1 ? "it is" : "they are"} asked again`,
    );
  } else {
    const left = [...new Set(rememberedApprovals(dir, booted.workspace).map((r) => r.tool))];
    note(
      `no approval of ${JSON.stringify(tool)} is remembered in ` +
        `${booted.workspace}${left.length ? ` (remembered: ${left.join(", ")})` : ""}`,
    );
  }
  return 0;
}
