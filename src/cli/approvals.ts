// `toolgate approvals [list [--all] | revoke TOOL]`: the "always" answers remembered at an approval
// prompt, kept in the user's state folder keyed by the workspace's real path, the tool and its digest
// (and a served caller's by that caller). list shows this workspace's (--all: every workspace's) and
// whether each still matches the tool as the catalog has it now; revoke forgets a tool's (every
// digest, every caller; a quoted glob picks several).
import { defineCommand } from "citty";
import { bootError, usageError } from "../result/result.ts";
import { boot } from "../runtime/boot.ts";
import { NO_USER_STATE, stateInWorkspace, stateInWorkspaceHint } from "../trust/paths.ts";
import { listApprovals, revokeApprovals } from "./approvals-actions.ts";
import { bootInput, type RunContext } from "./context.ts";
import { bool } from "./flags.ts";

export default defineCommand({
  meta: {
    name: "approvals",
    description:
      "The approvals remembered with A at a prompt (your state folder, by workspace, tool and digest): list " +
      "them, or revoke a tool's",
  },
  args: {
    action: {
      type: "positional",
      complete: ["list", "revoke"],
      description:
        "list (the default): this workspace's remembered approvals, and whether each still matches the tool; " +
        "revoke TOOL: forget that tool's (a quoted glob such as 'file_*' or '*' for several)",
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
        `your state folder ${dir} lies inside the workspace ${booted.workspace}, where toolgate reads no ` +
          `remembered approval`,
        stateInWorkspaceHint,
      );
    return action === "list" ? listApprovals(booted, dir, s, ctx) : revokeApprovals(booted, dir, tool!, s, ctx);
  } finally {
    await booted.remote?.shutdown();
  }
}
