// `toolgate config [--json]` shows every effective value with its origin;
// `toolgate config schema` prints the config's JSON Schema (exported from arktype) for editors;
// `toolgate config import FILE` reads another client's MCP config (config-import.ts).
import { defineCommand } from "citty";
import { configSchema } from "../generated/schemas.ts";
import { jsonForTerminal } from "../result/escape.ts";
import { usageError } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import { loadEffective } from "../runtime/boot.ts";
import { bootInput, type RunContext } from "./context.ts";
import { bool } from "./flags.ts";
import { note, outputWidth, table, writeOut } from "./ui.ts";
import { telemetryLeaves } from "../telemetry/env.ts";

export default defineCommand({
  meta: {
    name: "config",
    description: "Show the effective configuration with each value's origin (flag, env, file:line, default)",
  },
  args: {
    action: {
      type: "positional",
      complete: ["schema", "import"],
      description:
        "`schema` prints the config file's JSON Schema; `import FILE [--force]` writes another client's MCP " +
        "servers (VS Code, Cursor, Claude, Codex TOML, Zed, Windsurf, Gemini, Roo, Cline) into toolgate.json " +
        "(or --config FILE)",
      required: false,
    },
    force: { type: "boolean", description: "import: replace the toolgate.json written to when it exists" },
  },
});

export async function runConfig(ctx: RunContext): Promise<number> {
  const s = ctx.flags;
  const [action, extra, more] = s.positionals;
  if (action === "import" && more === undefined) return (await import("./config-import.ts")).runImport(ctx, s, extra);
  if (extra !== undefined || (action !== undefined && action !== "schema")) {
    throw usageError(
      `unknown config action ` +
        `"${extra ?? action}"${extra === undefined ? didYouMean(nearest(action!, ["schema", "import"])) : ""}`,
      "toolgate config [--json] | toolgate config schema | toolgate config import FILE [--force]",
    );
  }
  if (action === "schema") {
    const schema = { $schema: "https://json-schema.org/draft/2020-12/schema", title: "toolgate.json", ...configSchema };
    writeOut(JSON.stringify(schema, null, 2));
    return 0;
  }
  const { config, file } = await loadEffective(bootInput(ctx, s));
  if (file?.client) note(file.client.note);
  // Telemetry is the environment's alone (never a file's): shown after the config's own keys.
  const leaves = [...config.leaves, ...telemetryLeaves(ctx.env)];
  if (bool(s, "json") || !ctx.stdoutIsTTY) {
    const out: Record<string, { value: unknown; origin: string }> = {};
    for (const [k, l] of leaves) out[k] = { value: l.value, origin: l.origin };
    writeOut(jsonForTerminal(out, 2));
    return 0;
  }
  const rows = [["KEY", "VALUE", "ORIGIN"]];
  for (const [k, l] of leaves) rows.push([k, JSON.stringify(l.value), l.origin]);
  writeOut(table(rows, outputWidth(ctx), 1));
  return 0;
}
