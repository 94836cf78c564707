// `toolgate version`: the version, the commit it was built from and the platform it was built for
// (`--version` prints the version alone). JSON when piped or with --json.
import { defineCommand } from "citty";
import { usageError } from "../result/result.ts";
import { writeStdout } from "../result/io.ts";
import { COMMIT, TARGET, VERSION } from "../version.ts";
import type { RunContext } from "./context.ts";
import { bool } from "./flags.ts";

export default defineCommand({
  meta: {
    name: "version",
    description:
      "Print the version, the commit it was built from and its target platform (JSON when piped or with --json)",
  },
  args: {},
});

export async function runVersion(ctx: RunContext): Promise<number> {
  const s = ctx.flags;
  if (s.positionals.length > 0)
    throw usageError(`unexpected argument "${s.positionals[0]}"`, "toolgate version [--json]");
  const json = bool(s, "json") || !ctx.stdoutIsTTY;
  writeStdout(
    json
      ? `${JSON.stringify({ version: VERSION, commit: COMMIT, target: TARGET })}\n`
      : `toolgate ${VERSION}\ncommit ${COMMIT}\ntarget ${TARGET}\n`,
  );
  return 0;
}
