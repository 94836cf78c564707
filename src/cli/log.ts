// `toolgate log [--last N] [--json] [--tool T] [--status S] [--since D] [--caller C] [--follow] [--html FILE]`:
// the journal's action window (default the last 100), filtered; --follow keeps printing (log-follow.ts);
// --html writes it as one page (log-html.ts).
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
import { lastActions, type ActionFilter } from "../state/actions.ts";
import { cells, HEADER } from "./log-rows.ts";
import { lastResources } from "../state/resources.ts";
import { bootInput, type RunContext } from "./context.ts";
import { bool, multi, scanFlags, str, type Scanned } from "./flags.ts";
import { stateError } from "./state.ts";
import { checkStateFolder } from "../config/layout.ts";
import { outputWidth, table, writeOut } from "./ui.ts";
import { callerLabel } from "../serve/caller.ts";

export const ACTION_WINDOW = 100;

export default defineCommand({
  meta: {
    name: "log",
    description:
      "Print the journal: what was tried, and what was stopped (last 100 actions; a task's child calls under their task call)",
  },
  args: {
    last: { type: "string", description: "How many actions to show (default 100)", valueHint: "N" },
    resources: {
      type: "boolean",
      description:
        "List what tools created in the world instead (Most chats and messages: tool, kind, id, time, journal row)",
    },
    tool: {
      type: "string",
      description: "Only this tool's rows (repeatable; a glob such as 'file_*')",
      valueHint: "T",
    },
    status: {
      type: "string",
      description:
        "Only rows with this outcome (repeatable, or a comma list): success, failed, denied (refused a permission or an approval: exit 4), indeterminate, running",
      valueHint: "S",
    },
    since: {
      type: "string",
      description:
        "Only rows from this long ago (30s, 10m, 2h, 7d, 2w) or since this date and time (2025-01-31, 2025-01-31T09:00, ISO 8601)",
      valueHint: "D",
    },
    caller: {
      type: "string",
      description:
        "Only the calls of this caller (repeatable): what a row names as its caller, else how it came (session: forwarded by toolgate session)",
      valueHint: "C",
    },
    follow: {
      type: "boolean",
      description: "After the window, keep printing each call as it finishes (Ctrl-C ends it)",
    },
    html: {
      type: "string",
      description:
        "Write the window as one self-contained page (timeline, outcomes, denials and withheld results, filters) to FILE instead of printing it",
      valueHint: "FILE",
    },
  },
});

const STATUSES = ["success", "failed", "denied", "indeterminate", "running"];
const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** --since: an age (a number and s, m, h, d or w) or an ISO 8601 date and time; epoch ms. */
export function parseSince(raw: string, now: number): number {
  const age = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(raw.trim());
  if (age) return now - Number(age[1]) * UNITS[age[2]!]!;
  const at = /^\d{4}-\d{2}-\d{2}/.test(raw.trim()) ? Date.parse(raw.trim()) : Number.NaN;
  if (Number.isNaN(at))
    throw usageError(
      `--since ${JSON.stringify(raw)}: expected an age (30s, 10m, 2h, 7d, 2w) or a date (2025-01-31, 2025-01-31T09:00)`,
    );
  return at;
}

/** The filters of the command line, checked before anything is read. */
function filterOf(s: Scanned, now: number): ActionFilter {
  const statuses = multi(s, "status")
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
  for (const st of statuses)
    if (!STATUSES.includes(st))
      throw usageError(
        `--status ${JSON.stringify(st)}: not an outcome the journal shows`,
        `the outcomes are: ${STATUSES.join(", ")}`,
      );
  const since = str(s, "since");
  return {
    ...(multi(s, "tool").length ? { tools: multi(s, "tool") } : {}),
    ...(statuses.length ? { statuses: new Set(statuses) } : {}),
    ...(since === undefined ? {} : { sinceMs: parseSince(since, now) }),
    ...(multi(s, "caller").length ? { callers: multi(s, "caller") } : {}),
  };
}

export async function runLog(ctx: RunContext): Promise<number> {
  const s = scanFlags(ctx.argv, {
    last: { kind: "string" },
    resources: { kind: "bool" },
    tool: { kind: "multi" },
    status: { kind: "multi" },
    since: { kind: "string" },
    caller: { kind: "multi" },
    follow: { kind: "bool" },
    html: { kind: "string" },
  });
  if (s.positionals.length > 0)
    throw usageError(
      `unexpected argument "${s.positionals[0]}"`,
      "toolgate log [--last N] [--tool T] [--status S] [--since D] [--caller C] [--follow] [--resources] [--json]",
    );
  const filter = filterOf(s, Date.now());
  if (bool(s, "resources") && (Object.keys(filter).length > 0 || bool(s, "follow")))
    throw usageError(
      "--resources lists created resources: --tool, --status, --since, --caller and --follow are for the journal's calls",
      "drop them, or --resources",
    );
  const lastRaw = str(s, "last");
  const last = lastRaw === undefined ? ACTION_WINDOW : Number(lastRaw);
  if (!Number.isInteger(last) || last < 1)
    throw usageError(`--last ${lastRaw}: expected a whole number of actions, at least 1`);
  const input = bootInput(ctx, s);
  const { config, file } = await loadEffective(input);
  // An untrusted config cannot point the log at another folder's database (it would be opened and migrated).
  const authored = await authoredLoader(config); // TOOLGATE_TRUST may pin the authored tools too
  trustGate(
    { file, values: config.values, workspaceFlag: input.workspaceFlag !== undefined },
    {
      env: input.env,
      cwd: input.cwd,
      workspaceFlag: input.workspaceFlag,
      workspace: config.values.workspace,
      ...(authored ? { authoredDigests: authored.digests } : {}),
    },
  );
  const stateDir = config.values.state;
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
    for (const r of made)
      out.push([new Date(r.time_ms).toISOString(), r.tool, r.kind, r.resource_id, String(r.journal_id ?? "")]);
    writeOut(made.length ? table(out, outputWidth(ctx)) : "(no created resources)");
    return 0;
  }
  if (bool(s, "follow"))
    return (await import("./log-follow.ts")).follow({
      config,
      filter,
      last,
      json: bool(s, "json") || !ctx.stdoutIsTTY,
      width: outputWidth(ctx),
      open: () => openDb(config),
    });
  const rows = existsSync(join(stateDir, DB_NAME))
    ? withDb(config, (db) => lastActions(db, last, undefined, filter))
    : [];
  const html = str(s, "html");
  if (html !== undefined) return writePage(html, rows, ctx.cwd, config.values.workspace);
  if (bool(s, "json") || !ctx.stdoutIsTTY) {
    if (rows.length) writeOut(rows.map((r) => jsonForTerminal(r)).join("\n"));
    return 0;
  }
  // Served callers (serve --http --oauth-issuer) get a column of their own when the window holds one.
  const callers = rows.some((r) => r.caller_sub != null || r.caller_client != null);
  const withCaller = (c: string[], caller: string) => (callers ? [...c.slice(0, 5), caller, ...c.slice(5)] : c);
  const out = [withCaller(HEADER, "CALLER"), ...rows.map((r) => withCaller(cells(r), callerCell(r)))];
  writeOut(
    rows.length
      ? table(out, outputWidth(ctx))
      : Object.keys(filter).length
        ? "(no row matches)"
        : "(the journal is empty)",
  );
  return 0;
}

/** `alice via team-app`, `ci-bot`, or nothing for a call no served caller made. */
function callerCell(r: { caller_sub?: string | null; caller_client?: string | null }): string {
  if (r.caller_sub == null && r.caller_client == null) return "";
  return callerLabel({ sub: r.caller_sub ?? null, client_id: r.caller_client ?? null });
}

/** The page, written whole (a temporary file renamed over FILE); stdout says where, and how many rows. */
async function writePage(
  file: string,
  rows: Parameters<typeof import("./log-html.ts").journalPage>[0],
  cwd: string,
  workspace: string,
): Promise<number> {
  if (file === "") throw usageError("--html needs a file name", "toolgate log --html run.html");
  const { journalPage } = await import("./log-html.ts");
  const path = resolve(cwd, file);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, journalPage(rows, { title: workspace, made: new Date() }), { flag: "wx", mode: 0o644 });
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw usageError(
      `--html ${file}: cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      "name a file in a folder you can write",
    );
  }
  writeOut(`wrote ${path} (${rows.length} ${rows.length === 1 ? "call" : "calls"})`);
  return 0;
}

function openDb(config: Effective): Database {
  try {
    return openState(config.values.state, false);
  } catch (e) {
    throw stateError(config, e, "the journal cannot be read");
  }
}

function withDb<T>(config: Effective, f: (db: Database) => T): T {
  const db = openDb(config);
  try {
    return f(db);
  } finally {
    db.close();
  }
}
