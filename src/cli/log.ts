// `toolgate log [--last N] [--caller C] [--json] [--html FILE]`: the journal's action window
// (default the last 100), of one served caller's calls with --caller, or as a page (log-html.ts).
import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
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
import { table, writeOut } from "./ui.ts";
import { callerLabel } from "../serve/caller.ts";

export const ACTION_WINDOW = 100;

export default defineCommand({
  meta: { name: "log", description: "Print the journal: what was tried, and what was stopped (last 100 actions; a task's child calls under their task call)" },
  args: {
    last: { type: "string", description: "How many actions to show (default 100)", valueHint: "N" },
    resources: { type: "boolean", description: "List what tools created in the world instead (Most chats and messages: tool, kind, id, time, journal row)" },
    caller: { type: "string", description: "Only the calls of this caller of serve --http --oauth-issuer (its token's sub or client_id)", valueHint: "C" },
    html: { type: "string", description: "Write the window as one self-contained page (timeline, outcomes, denials and withheld results, filters) to FILE instead of printing it", valueHint: "FILE" },
  },
});

export async function runLog(ctx: RunContext): Promise<number> {
  const s = scanFlags(ctx.argv, { last: { kind: "string" }, resources: { kind: "bool" }, caller: { kind: "string" }, html: { kind: "string" } });
  if (s.positionals.length > 0) throw usageError(`unexpected argument "${s.positionals[0]}"`, "toolgate log [--last N] [--caller C] [--resources] [--json]");
  const caller = str(s, "caller");
  if (caller !== undefined && bool(s, "resources")) throw usageError("--caller applies to the journal, not to --resources", "leave one of them out");
  const lastRaw = str(s, "last");
  const last = lastRaw === undefined ? ACTION_WINDOW : Number(lastRaw);
  if (!Number.isInteger(last) || last < 1) throw usageError(`--last ${lastRaw}: expected a whole number of actions, at least 1`);
  const input = bootInput(ctx, s);
  const { config, file } = await loadEffective(input);
  // An untrusted config cannot point the log at another folder's database (it would be opened and migrated).
  const authored = await authoredLoader(config); // TOOLGATE_TRUST may pin the authored tools too
  trustGate({ file, values: config.values, workspaceFlag: input.workspaceFlag !== undefined, scratchFlag: input.scratchFlag !== undefined }, { env: input.env, cwd: input.cwd, workspaceFlag: input.workspaceFlag, workspace: config.values.workspace as string, ...(authored ? { authoredDigests: authored.digests } : {}) });
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
    writeOut(made.length ? table(out) : "(no created resources)");
    return 0;
  }
  const rows = existsSync(join(stateDir, DB_NAME)) ? withDb(config, (db) => lastActions(db, last, undefined, caller === undefined ? {} : { caller })) : [];
  const html = str(s, "html");
  if (html !== undefined) return writePage(html, rows, ctx.cwd, config.values.workspace as string);
  if (bool(s, "json") || !ctx.stdoutIsTTY) {
    if (rows.length) writeOut(rows.map((r) => jsonForTerminal(r)).join("\n"));
    return 0;
  }
  // Served callers get a column of their own when the window holds one.
  const callers = rows.some((r) => r.caller_sub != null || r.caller_client != null);
  const out = [["TIME", "TOOL", "STATUS", "CODE", "MS", ...(callers ? ["CALLER"] : []), "ARGUMENTS"]];
  // A task's child calls follow their task call's row (they are filed when the child ends), indented under it.
  for (const r of rows) out.push([new Date(r.time_ms).toISOString(), r.parent != null ? `  └ ${r.tool} (task #${r.parent})` : r.tool === "task" ? `task #${r.id}` : toolCell(r), r.status, r.error_code ?? "", String(r.duration_ms), ...(callers ? [callerCell(r)] : []), r.args_preview]);
  writeOut(rows.length ? table(out) : caller === undefined ? "(the journal is empty)" : `(no calls of ${caller} in the journal)`);
  return 0;
}

/** `alice via team-app`, `ci-bot`, or nothing for a call no served caller made. */
function callerCell(r: { caller_sub?: string | null; caller_client?: string | null }): string {
  if (r.caller_sub == null && r.caller_client == null) return "";
  return callerLabel({ sub: r.caller_sub ?? null, client_id: r.caller_client ?? null });
}

/** A background task's rows (task_started, task_finished) name the task beside the tool. */
function toolCell(r: { tool: string; event: string; detail: string | null }): string {
  if (!r.event.startsWith("task_") || r.detail === null) return r.tool;
  const id = (JSON.parse(r.detail) as { task_id?: string }).task_id ?? "";
  return `${r.tool} [${r.event === "task_started" ? "task started" : "task finished"} ${id.slice(0, 8)}]`;
}

/** The page, written whole (a temporary file renamed over FILE); stdout says where, and how many rows. */
async function writePage(file: string, rows: Parameters<typeof import("./log-html.ts").journalPage>[0], cwd: string, workspace: string): Promise<number> {
  if (file === "") throw usageError("--html needs a file name", "toolgate log --html run.html");
  const { journalPage } = await import("./log-html.ts");
  const path = resolve(cwd, file);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, journalPage(rows, { title: workspace, made: new Date() }), { flag: "wx", mode: 0o644 });
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw usageError(`--html ${file}: cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, "name a file in a folder you can write");
  }
  writeOut(`wrote ${path} (${rows.length} ${rows.length === 1 ? "call" : "calls"})`);
  return 0;
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
