// `toolgate help [CMD]`: the entry point's own `[CMD] --help` (render-help.ts draws it), so both print the same.
import { defineCommand } from "citty";
import { usageError } from "../result/result.ts";
import type { RunContext } from "./context.ts";

export default defineCommand({
  meta: {
    name: "help",
    description:
      "Show the help of toolgate, or of one command with its examples (toolgate help CMD is toolgate CMD --help)",
  },
  args: {
    command: {
      type: "positional",
      description: "The command (default: toolgate's own help)",
      required: false,
      complete: "commands",
    },
  },
});

/** `toolgate help [CMD]`: the entry point's own `[CMD] --help`, so both print the same. */
export async function runHelp(ctx: RunContext): Promise<number> {
  const s = ctx.flags;
  const [command, extra] = s.positionals;
  if (extra !== undefined) throw usageError(`unexpected argument "${extra}"`, "toolgate help [COMMAND]");
  return ctx.dispatch!(command === undefined ? ["--help"] : [command, "--help"], {});
}
