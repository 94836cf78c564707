// `toolgate log [--last N] [--json]`: the journal's action window (default the last 100).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { defineCommand } from "citty";
import type { Database } from "bun:sqlite";
import type { Effective } from "../config/resolve.ts";
import { jsonForTerminal } from "../result/escape.ts";
import { usageError } from "../result/result.ts";
import { loadEffective } from "../runtime/boot.ts";
import { trustGate } from "../trust/gate.ts";
import { authoredLoader } from "../runtime/authored.ts";
import { DB_NAME, openState } from "../state/db.ts";
import { lastActions } from "../state/journal.ts";
import { lastResources } from "../state/resources.ts";
import { bootInput, type RunContext } from "./context.ts";
import { bool, scanFlags, str } from "./flags.ts";
import { stateError } from "./state.ts";
import { checkStateFolder } from "../config/layout.ts";
import { outputWidth, table, writeOut } from "./ui.ts";

export const ACTION_WINDOW = 100;

export default defineCommand({
  meta: { name: "log", description: "Print the journal: what was tried, and what was stopped (last 100 actions; a task's child calls under their task call)" },
  args: {
    last: { type: "string", description: "How many actions to show (default 100)", valueHint: "N" },
    resources: { type: "boolean", description: "List what tools created in the world instead (Most chats and messages: tool, kind, id, time, journal row)" },
  },
});

export async function runLog(ctx: RunContext): Promise<number> {
  const s = scanFlags(ctx.argv, { last: { kind: "string" }, resources: { kind: "bool" } });
  if (s.positionals.length > 0) throw usageError(`unexpected argument "${s.positionals[0]}"`, "toolgate log [--last N] [--resources] [--json]");
  const lastRaw = str(s, "last");
  const last = lastRaw === undefined ? ACTION_WINDOW : Number(lastRaw);
  if (!Number.isInteger(last) || last < 1) throw usageError(`--last ${lastRaw}: expected a whole number of actions, at least 1`);
  const input = bootInput(ctx, s);
  const { config, file } = await loadEffective(input);
  // An untrusted config cannot point the log at another folder's database (it would be opened and migrated).
  const authored = await authoredLoader(config); // TOOLGATE_TRUST may pin the authored tools too
  trustGate({ file, values: config.values, workspaceFlag: input.workspaceFlag !== undefined }, { env: input.env, cwd: input.cwd, workspaceFlag: input.workspaceFlag, workspace: config.values.workspace as string, ...(authored ? { authoredDigests: authored.digests } : {}) });
  const stateDir = config.values.state as string;
  checkStateFolder(config);
  // Reading the log never creates a state folder. A call started and never finished (its
  // process is gone) reads as indeterminate; one still running, as running.
  if (bool(s, "resources")) {
    const made = existsSync(join(stateDir, DB_NAME)) ? withDb(config, (db) => lastResources(db, last)) : [];
    if (bool(s, "json") || !ctx.stdoutIsTTY) {
      if (made.length) writeOut(made.map((r) => jsonForTerminal(r)).join("\n"));
      return 0;
    }
    const out = [["TIME", "TOOL", "KIND", "ID", "JOURNAL ROW"]];
    for (const r of made) out.push([new Date(r.time_ms).toISOString(), r.tool, r.kind, r.resource_id, String(r.journal_id ?? "")]);
    writeOut(made.length ? table(out, outputWidth(ctx)) : "(no created resources)");
    return 0;
  }
  const rows = existsSync(join(stateDir, DB_NAME)) ? withDb(config, (db) => lastActions(db, last)) : [];
  if (bool(s, "json") || !ctx.stdoutIsTTY) {
    if (rows.length) writeOut(rows.map((r) => jsonForTerminal(r)).join("\n"));
    return 0;
  }
  const out = [["TIME", "TOOL", "STATUS", "CODE", "MS", "ARGUMENTS"]];
  // A task's child calls follow their task call's row (they are filed when the child ends), indented under it.
  for (const r of rows) out.push([new Date(r.time_ms).toISOString(), r.parent != null ? `  └ ${r.tool} (task #${r.parent})` : r.tool === "task" ? `task #${r.id}` : toolCell(r), r.status, r.error_code ?? "", String(r.duration_ms), r.args_preview]);
  writeOut(rows.length ? table(out, outputWidth(ctx)) : "(the journal is empty)");
  return 0;
}

/** A background task's rows (task_started, task_finished) name the task beside the tool. */
function toolCell(r: { tool: string; event: string; detail: string | null }): string {
  if (!r.event.startsWith("task_") || r.detail === null) return r.tool;
  const id = (JSON.parse(r.detail) as { task_id?: string }).task_id ?? "";
  return `${r.tool} [${r.event === "task_started" ? "task started" : "task finished"} ${id.slice(0, 8)}]`;
}

function withDb<T>(config: Effective, f: (db: Database) => T): T {
  let db: Database;
  try {
    db = openState(config.values.state as string, false);
  } catch (e) {
    throw stateError(config, e, "the journal cannot be read");
  }
  try {
    return f(db);
  } finally {
    db.close();
  }
}
