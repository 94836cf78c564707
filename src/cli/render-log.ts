// How `toolgate log` shows what it read: JSON lines when piped (or --json), a table on a terminal,
// or one self-contained page (--html FILE, log-html.ts).
import { renameSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { JournalEntry } from "../state/journal.ts";
import type { lastResources } from "../state/resources.ts";
import { jsonForTerminal } from "../result/escape.ts";
import { usageError } from "../result/result.ts";
import { callerLabel } from "../serve/caller.ts";
import { cells, HEADER } from "./log-rows.ts";
import { table, writeOut } from "./ui.ts";

type Made = ReturnType<typeof lastResources>;

/** What tools created (--resources). */
export function showResources(made: Made, json: boolean, width: number): 0 {
  if (json) {
    if (made.length) writeOut(made.map((r) => jsonForTerminal(r)).join("\n"));
    return 0;
  }
  const out = [["TIME", "TOOL", "KIND", "ID", "JOURNAL ROW"]];
  for (const r of made)
    out.push([new Date(r.time_ms).toISOString(), r.tool, r.kind, r.resource_id, String(r.journal_id ?? "")]);
  writeOut(made.length ? table(out, width) : "(no created resources)");
  return 0;
}

/** The window of actions; `filtered` says why an empty one is empty. */
export function showActions(rows: readonly JournalEntry[], json: boolean, width: number, filtered: boolean): void {
  if (json) {
    if (rows.length) writeOut(rows.map((r) => jsonForTerminal(r)).join("\n"));
    return;
  }
  // Served callers (serve --http --oauth-issuer) get a column of their own when the window holds one.
  const callers = rows.some((r) => r.caller_sub != null || r.caller_client != null);
  const withCaller = (c: string[], caller: string) => (callers ? [...c.slice(0, 5), caller, ...c.slice(5)] : c);
  const out = [withCaller(HEADER, "CALLER"), ...rows.map((r) => withCaller(cells(r), callerCell(r)))];
  writeOut(rows.length ? table(out, width) : filtered ? "(no row matches)" : "(the journal is empty)");
}

/** `alice via team-app`, `ci-bot`, or nothing for a call no served caller made. */
function callerCell(r: { caller_sub?: string | null; caller_client?: string | null }): string {
  if (r.caller_sub == null && r.caller_client == null) return "";
  return callerLabel({ sub: r.caller_sub ?? null, client_id: r.caller_client ?? null });
}

/** The page, written whole (a temporary file renamed over FILE); stdout says where, and how many rows. */
export async function writePage(
  file: string,
  rows: readonly JournalEntry[],
  cwd: string,
  workspace: string,
): Promise<number> {
  if (file === "") throw usageError("--html needs a file name", "toolgate log --html run.html");
  const { journalPage } = await import("./log-html.ts");
  const path = resolve(cwd, file);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, journalPage([...rows], { title: workspace, made: new Date() }), { flag: "wx", mode: 0o644 });
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
