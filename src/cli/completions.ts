// `toolgate completions bash|zsh|fish`: a completion script for the shell, drawn from the commands'
// declarations (completion-spec.ts: their flags, the global ones, the actions a command takes). Tool
// names are not embedded: at completion time the script asks `toolgate tools --names`, which reads the catalog
// cache and starts no server. The scripts themselves are in completion-scripts.ts.
import { defineCommand } from "citty";
import { usageError } from "../result/result.ts";
import { writeStdout } from "../result/io.ts";
import type { RunContext } from "./context.ts";
import { SCRIPTS, SHELLS } from "./completion-scripts.ts";
import { specOf } from "./completion-spec.ts";

export default defineCommand({
  meta: {
    name: "completions",
    description:
      "Print the shell completion script for bash, zsh or fish: commands, each command's flags, and tool " +
      "names (asked of toolgate tools --names as you type: no server is started)",
  },
  args: {
    shell: { type: "positional", description: "bash, zsh or fish", required: true, complete: SHELLS },
  },
});

export async function runCompletions(ctx: RunContext): Promise<number> {
  const s = ctx.flags;
  const [shell, extra] = s.positionals;
  const choices =
    `the shells are: ${SHELLS.join(", ")} (toolgate completions bash > ` +
    `~/.local/share/bash-completion/completions/toolgate)`;
  if (shell === undefined) throw usageError("completions needs the shell to complete for", choices);
  if (!(SHELLS as readonly string[]).includes(shell))
    throw usageError(`no completion script for the shell "${shell}"`, choices);
  if (extra !== undefined) throw usageError(`unexpected argument "${extra}"`, "toolgate completions bash|zsh|fish");
  writeStdout(SCRIPTS[shell as (typeof SHELLS)[number]](await specOf(ctx.top!)));
  return 0;
}
