// `toolgate tools [NAME] [--json]`: the catalog as a table on a terminal, NDJSON when piped
// or with --json; with NAME, the whole descriptor and its input JSON Schema.
import { defineCommand } from "citty";
import { CliError, ExitCode } from "../result/result.ts";
import { renderLock, writeLock } from "../catalog/lock.ts";
import { boot } from "../runtime/boot.ts";
import type { RunContext } from "./context.ts";
import { bool, scanFlags, str } from "./flags.ts";
import { table, writeOut } from "./ui.ts";

export default defineCommand({
  meta: { name: "tools", description: "List the catalog, or show one tool's descriptor and input schema" },
  args: {
    name: { type: "positional", description: "Show this tool's whole descriptor", required: false },
    lock: { type: "boolean", description: "Write toolgate.lock: pin every tool's descriptor digest (renew after reviewing a change)" },
  },
});

export async function runTools(ctx: RunContext): Promise<number> {
  const s = scanFlags(ctx.argv, { lock: { kind: "bool" } });
  const [name, extra] = s.positionals;
  if (extra !== undefined) throw new CliError(ExitCode.usage, `unexpected argument "${extra}"`, "toolgate tools [NAME]");
  const booted = await boot({ cwd: ctx.cwd, env: ctx.env, configFlag: str(s, "config"), workspaceFlag: str(s, "workspace"), permissionFlags: s.permissions, ignoreLock: bool(s, "lock") });
  const json = bool(s, "json") || !ctx.stdoutIsTTY;
  const { descriptors } = booted.catalog;
  if (bool(s, "lock")) {
    writeLock(booted.lockPath, renderLock(descriptors));
    process.stderr.write(`toolgate: wrote ${booted.lockPath} (${descriptors.length} tools pinned)\n`);
    return 0;
  }
  const pin = (n: string) => booted.refused.get(n)?.code;
  if (name !== undefined) {
    const d = descriptors.find((x) => x.name === name);
    if (!d) throw new CliError(ExitCode.failed, `unknown_tool: no tool named "${name}" in this catalog`, "run `toolgate tools` for the list");
    writeOut(JSON.stringify(d, null, json && !bool(s, "json") ? 0 : 2));
    return 0;
  }
  if (json) {
    writeOut(descriptors.map(({ inputSchema: _, ...d }) => JSON.stringify(pin(d.name) ? { ...d, refused: pin(d.name) } : d)).join("\n"));
    return 0;
  }
  const rows = [["NAME", "ORIGIN", "EFFECT", "APPROVAL", "DIGEST", "DESCRIPTION"]];
  for (const d of descriptors) rows.push([d.name, d.origin, d.effect, d.approval, d.digest.slice(0, 12) + (pin(d.name) ? ` (${pin(d.name)})` : ""), firstSentence(d.description)]);
  writeOut(table(rows));
  return 0;
}

const firstSentence = (s: string) => {
  const i = s.indexOf(". ");
  return i > 0 ? s.slice(0, i + 1) : s;
};
