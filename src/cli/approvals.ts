// `toolgate approvals [list [--all] | revoke TOOL]`: the "always" answers remembered at an approval
// prompt, kept in the user's state folder keyed by the workspace's real path, the tool and its digest.
// list shows this workspace's (--all: every workspace's) and whether each still matches the tool as
// the catalog has it now; revoke forgets a tool's (every digest; a quoted glob picks several).
import { defineCommand } from "citty";
import { escapeControl, jsonForTerminal } from "../result/escape.ts";
import { bootError, usageError } from "../result/result.ts";
import { boot, type Booted } from "../runtime/boot.ts";
import { forgetApprovals, rememberedApprovals, type Remembered } from "../state/approvals.ts";
import { NO_USER_STATE, stateInWorkspace, stateInWorkspaceHint } from "../trust/paths.ts";
import { bootInput, type RunContext } from "./context.ts";
import { bool, type Scanned } from "./flags.ts";
import { isGlob } from "./tools-filter.ts";
import { note, outputWidth, table, writeOut } from "./ui.ts";

export default defineCommand({
  meta: {
    name: "approvals",
    description:
      "The approvals remembered with A at a prompt (your state folder, by workspace, tool and digest): list them, or revoke a tool's",
  },
  args: {
    action: {
      type: "positional",
      description:
        "list (the default): this workspace's remembered approvals, and whether each still matches the tool; revoke TOOL: forget that tool's (a quoted glob such as 'file_*' or '*' for several)",
      required: false,
    },
    tool: { type: "positional", description: "With revoke: the tool", required: false },
    all: { type: "boolean", description: "list: every workspace's, not only this one's" },
  },
});

export async function runApprovals(ctx: RunContext): Promise<number> {
  const s = ctx.flags;
  const [action = "list", tool, extra] = s.positionals;
  if (action !== "list" && action !== "revoke")
    throw usageError(`unknown approvals action "${action}"`, "toolgate approvals [list [--all] | revoke TOOL]");
  if (action === "revoke" && tool === undefined)
    throw usageError(
      "approvals revoke needs the tool whose approvals to forget",
      "toolgate approvals revoke TOOL (toolgate approvals list shows them)",
    );
  const unexpected = action === "list" ? tool : extra;
  if (unexpected !== undefined)
    throw usageError(`unexpected argument "${unexpected}"`, "toolgate approvals [list [--all] | revoke TOOL]");
  if (action === "revoke" && bool(s, "all"))
    throw usageError(
      "--all goes with list: revoke forgets this workspace's approvals",
      "run it in each workspace, or name them with --workspace DIR",
    );
  // The workspace as a call would have it, and the catalog from its cache: no server is started.
  const booted = await boot({ ...bootInput(ctx, s), cachedOnly: true });
  try {
    const dir = booted.userState;
    if (dir === null)
      throw bootError(
        `remembered approvals need a user state folder: ${NO_USER_STATE}`,
        "set HOME (or XDG_STATE_HOME) to where your records live",
      );
    // Records in a state folder inside the workspace are never read (the repository could have put them there).
    if (stateInWorkspace(dir, booted.workspace))
      throw bootError(
        `your state folder ${dir} lies inside the workspace ${booted.workspace}, where toolgate reads no remembered approval`,
        stateInWorkspaceHint,
      );
    return action === "list" ? list(booted, dir, s, ctx) : revoke(booted, dir, tool!, s, ctx);
  } finally {
    await booted.remote?.shutdown();
  }
}

/** "current": the tool's digest now; "changed": it was asked again after a change (inert); "absent": not in this catalog. */
function stateOf(booted: Booted, r: Remembered): "current" | "changed" | "absent" {
  const d = booted.catalog.entries.get(r.tool)?.digest;
  return d === undefined ? "absent" : d === r.digest ? "current" : "changed";
}

function list(booted: Booted, dir: string, s: Scanned, ctx: RunContext): number {
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
  const out = [
    [...(all ? ["WORKSPACE"] : []), "TOOL", "DIGEST", "GRANTED", "STATE"],
    ...rows.map((r) => [
      ...(all ? [r.workspace] : []),
      r.tool,
      r.digest.slice(0, 12),
      new Date(r.granted_ms).toISOString(),
      state(r) ?? "",
    ]),
  ];
  writeOut(table(out, outputWidth(ctx), 0));
  if (!bool(s, "quiet") && rows.some((r) => state(r) === "changed"))
    note(
      "changed: the tool is not what was approved, so it is asked again; revoke the old approval with toolgate approvals revoke TOOL",
    );
  return 0;
}

function revoke(booted: Booted, dir: string, tool: string, s: Scanned, ctx: RunContext): number {
  const pick = isGlob(tool) ? (t: string) => new Bun.Glob(tool).match(t) : (t: string) => t === tool;
  const gone = forgetApprovals(dir, booted.workspace, pick);
  if (bool(s, "json") || !ctx.stdoutIsTTY)
    writeOut(
      jsonForTerminal({
        workspace: booted.workspace,
        tool,
        revoked: gone.map((r) => ({ tool: r.tool, digest: r.digest })),
      }),
    );
  if (bool(s, "quiet")) return 0;
  if (gone.length > 0) {
    note(
      `forgot ${gone.length} remembered approval${gone.length === 1 ? "" : "s"} in ${booted.workspace}: ${[...new Set(gone.map((r) => r.tool))].join(", ")}; ${gone.length === 1 ? "it is" : "they are"} asked again`,
    );
  } else {
    const left = [...new Set(rememberedApprovals(dir, booted.workspace).map((r) => r.tool))];
    note(
      `no approval of ${JSON.stringify(tool)} is remembered in ${booted.workspace}${left.length ? ` (remembered: ${left.join(", ")})` : ""}`,
    );
  }
  return 0;
}
