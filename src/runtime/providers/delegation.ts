// Delegation (`task`, src/tools/delegate): a child toolgate run by the configured agent command.
// A child server offers no task (its profile excludes it) and never sweeps: its sandbox may hide the records.
import { resolve } from "node:path";
import { builtinSources } from "../../catalog/builtin.ts";
import type { ConfigFile } from "../../config/file.ts";
import type { Effective } from "../../config/resolve.ts";
import { note } from "../../result/human.ts";
import { bootError } from "../../result/result.ts";
import { delegationTools } from "../../tools/delegate/index.ts";
import { templateProblem } from "../../tools/delegate/template.ts";
import { sweepWorktrees } from "../../tools/delegate/change.ts";
import type { BootInput } from "../boot-input.ts";
import type { Provider } from "./provider.ts";

export { delegationSecrets } from "../../tools/delegate/index.ts";

export const delegation: Provider = {
  name: "delegation",
  open: (ctx, _opened, before) =>
    ctx.input.child
      ? [...before]
      : [...before, ...builtinSources(delegationToolsFor(ctx.config, ctx.file, ctx.input.env))],
};

/**
 * Delegation's tools for this config: a template that cannot hand the child its objective and its
 * server fails the boot; with a worktree root, the worktrees whose change is gone are swept first.
 */
function delegationToolsFor(config: Effective, file: ConfigFile | null, env: BootInput["env"]) {
  const tools = delegationTools(config.values, env);
  if (tools.length === 0) return tools;
  const d = config.values.delegation as { command: string[]; worktree_root?: string };
  const problem = templateProblem(d.command);
  if (problem !== null) {
    const line = file?.lineOf(["delegation", "command"]);
    throw bootError(
      `${file ? `${file.path}${line ? `:${line}` : ""}: ` : ""}delegation.command ${problem}`,
      'put "{objective}" in one element and "{server}" (the child server\'s argv, spliced) or "{mcp_config}" ' +
        'in another, e.g. ["my-agent", "--mcp-config", "{mcp_config}", "-p", "{objective}"]',
    );
  }
  if (d.worktree_root !== undefined) {
    const swept = sweepWorktrees(resolve(config.values.workspace as string, d.worktree_root));
    if (swept.length > 0)
      note(
        `removed the folders of ${swept.length} change${swept.length === 1 ? "" : "s"} no longer pending ` +
          `(${swept.join(", ")})`,
      );
  }
  return tools;
}
