// `toolgate log [--last N] [--json] [--tool T] [--status S] [--since D] [--caller C] [--follow] [--html FILE]`:
// the journal's action window (default the last 100), filtered (src/state/log-query.ts); --follow
// keeps printing (log-follow.ts); --html writes it as one page; shown by render-log.ts.
import { defineCommand } from "citty";
import { usageError } from "../result/result.ts";
import { lastActions } from "../state/actions.ts";
import { actionFilter, resourcesAlone, windowSize } from "../state/log-query.ts";
import { lastResources } from "../state/resources.ts";
import type { RunContext } from "./context.ts";
import { bool, multi, str } from "./flags.ts";
import { openJournal, openWorkspace, readJournal } from "./open.ts";
import { showActions, showResources, writePage } from "./render-log.ts";
import { outputWidth } from "./ui.ts";

export default defineCommand({
  meta: {
    name: "log",
    description:
      "Print the journal: what was tried, and what was stopped (last 100 actions; a task's calls under its call)",
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
      repeat: true,
      description: "Only this tool's rows (repeatable; a glob such as 'file_*')",
      valueHint: "T",
    },
    status: {
      type: "string",
      repeat: true,
      description:
        "Only rows with this outcome (repeatable, or a comma list): success, failed, denied (refused a " +
        "permission or an approval: exit 4), indeterminate, running",
      valueHint: "S",
    },
    since: {
      type: "string",
      description:
        "Only rows from this long ago (30s, 10m, 2h, 7d, 2w) or since this date and time (2025-01-31, " +
        "2025-01-31T09:00, ISO 8601)",
      valueHint: "D",
    },
    caller: {
      type: "string",
      repeat: true,
      description:
        "Only the calls of this caller (repeatable): what a row names as its caller, else how it came " +
        "(session: forwarded by toolgate session)",
      valueHint: "C",
    },
    follow: {
      type: "boolean",
      description: "After the window, keep printing each call as it finishes (Ctrl-C ends it)",
    },
    html: {
      type: "string",
      description:
        "Write the window as one self-contained page (timeline, outcomes, denials and withheld results, " +
        "filters) to FILE instead of printing it",
      valueHint: "FILE",
    },
  },
});

export async function runLog(ctx: RunContext): Promise<number> {
  const s = ctx.flags;
  if (s.positionals.length > 0)
    throw usageError(
      `unexpected argument "${s.positionals[0]}"`,
      "toolgate log [--last N] [--tool T] [--status S] [--since D] [--caller C] [--follow] [--resources] [--json]",
    );
  const [tools, statuses, callers] = [multi(s, "tool"), multi(s, "status"), multi(s, "caller")];
  const filter = actionFilter({ tools, statuses, since: str(s, "since"), callers }, Date.now());
  if (bool(s, "resources")) resourcesAlone(filter, bool(s, "follow"));
  const last = windowSize(str(s, "last"));
  const { config } = await openWorkspace(ctx, s);
  const json = bool(s, "json") || !ctx.stdoutIsTTY;
  const doing = "the journal cannot be read";
  if (bool(s, "resources"))
    return showResources(
      readJournal(config, doing, [], (db) => lastResources(db, last)),
      json,
      outputWidth(ctx),
    );
  if (bool(s, "follow")) {
    const open = () => openJournal(config, doing);
    return (await import("./log-follow.ts")).follow({ config, filter, last, json, width: outputWidth(ctx), open });
  }
  const rows = readJournal(config, doing, [], (db) => lastActions(db, last, undefined, filter));
  const html = str(s, "html");
  if (html !== undefined) return writePage(html, rows, ctx.cwd, config.values.workspace as string);
  showActions(rows, json, outputWidth(ctx), Object.keys(filter).length > 0);
  return 0;
}
