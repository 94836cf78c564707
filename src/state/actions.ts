// The journal's read side for `toolgate log`: the action window, filtered (tool globs, statuses,
// a start time, callers), and the rows that came or finished since (--follow). A started row is
// shown as running while its process runs, else as indeterminate.
import type { Database } from "bun:sqlite";
import { CODES } from "../result/codes.ts";
import { stillRunning, UNFINISHED, type JournalEntry, type ProcessMark } from "./journal.ts";

/**
 * The action window: the last `n` rows, oldest first. A started row is "running" while its
 * process runs, else indeterminate: the effect is unknown (killed mid-call).
 */
export function lastActions(
  db: Database,
  n: number,
  running: (m: ProcessMark) => boolean = stillRunning,
  filter: ActionFilter = {},
): JournalEntry[] {
  const { where, params } = whereOf(filter);
  const out: JournalEntry[] = [];
  for (const row of db
    .query(`SELECT * FROM journal ${where} ORDER BY id DESC`)
    .iterate(params) as IterableIterator<StoredRow>) {
    const r = shown(row, running);
    if (!filter.statuses || filter.statuses.has(r.status) || (filter.statuses.has("denied") && isDenial(r)))
      out.push(r);
    if (out.length >= n) break;
  }
  return out.reverse();
}

/**
 * Rows after `afterId`, and the rows `again` (shown running before), oldest first, as lastActions shows them (`log
 * --follow`).
 */
export function actionsSince(
  db: Database,
  afterId: number,
  again: readonly number[],
  filter: ActionFilter = {},
  running: (m: ProcessMark) => boolean = stillRunning,
): JournalEntry[] {
  const { where, params } = whereOf(
    filter,
    `(id > $after${again.length ? ` OR id IN (${again.map(Number).join(",")})` : ""})`,
    true,
  );
  const rows = db.query(`SELECT * FROM journal ${where} ORDER BY id`).all({ ...params, after: afterId }) as StoredRow[];
  return rows
    .map((r) => shown(r, running))
    .filter(
      (r) =>
        !filter.statuses ||
        r.status === "running" ||
        filter.statuses.has(r.status) ||
        (filter.statuses.has("denied") && isDenial(r)),
    );
}

/**
 * What `toolgate log` keeps (each given part must hold). `statuses` as shown: success, failed,
 * indeterminate, running, and denied (a failed row whose code denies: exit 4). `tools` are globs.
 * A row's caller is the one its detail names (`caller`), else how the call came (`via`: "session").
 */
export interface ActionFilter {
  readonly tools?: readonly string[];
  readonly statuses?: ReadonlySet<string>;
  readonly sinceMs?: number;
  readonly callers?: readonly string[];
}

type StoredRow = JournalEntry & { pid: number | null; pid_start: number | null };

/**
 * A served caller's subject or client id (serve --http --oauth-issuer), else how the call came (detail's `via`:
 * "session").
 */
const CALLER =
  "(CASE WHEN json_valid(detail) THEN coalesce(json_extract(detail, '$.caller'), json_extract(detail, '$.via')) END)";

/** The codes that deny (exit 4): a permission or an approval refused, an authorization needed. */
const DENIALS = new Set(
  Object.entries(CODES)
    .filter(([, c]) => c.exit === 4)
    .map(([code]) => code),
);
const isDenial = (r: JournalEntry) => r.status === "failed" && r.error_code !== null && DENIALS.has(r.error_code);

function whereOf(
  f: ActionFilter,
  first?: string,
  started = false,
): { where: string; params: Record<string, string | number> } {
  const parts: string[] = first ? [first] : [];
  const params: Record<string, string | number> = {};
  if (f.sinceMs !== undefined) parts.push("time_ms >= $since"), (params.since = f.sinceMs);
  if (f.tools?.length)
    parts.push(`(${f.tools.map((t, i) => ((params[`tool${i}`] = t), `tool GLOB $tool${i}`)).join(" OR ")})`);
  if (f.callers?.length) {
    const names = f.callers.map((c, i) => ((params[`caller${i}`] = c), `$caller${i}`)).join(", ");
    parts.push(`(caller_sub IN (${names}) OR caller_client IN (${names}) OR ${CALLER} IN (${names}))`);
  }
  // A started row shows as running or indeterminate: it is kept for either, and decided once shown
  // (and always with `started`: --follow holds a running row until it ends).
  if (f.statuses) {
    const stored = [...f.statuses].flatMap((s) => (s === "denied" ? ["failed"] : s === "running" ? [] : [s]));
    const orStarted = started || f.statuses.has("running") || f.statuses.has("indeterminate");
    parts.push(
      `(${[...(stored.length ? [`status IN (${stored.map((s, i) => ((params[`status${i}`] = s), `$status${i}`)).join(", ")})`] : []), ...(orStarted ? ["event = 'tool_started'"] : [])].join(" OR ") || "0"})`,
    );
  }
  return { where: parts.length ? `WHERE ${parts.join(" AND ")}` : "", params };
}

/** A started row is running while its process runs, else indeterminate (killed mid-call). */
function shown({ pid, pid_start, ...all }: StoredRow, running: (m: ProcessMark) => boolean): JournalEntry {
  // A row no served caller made has no caller fields.
  const { caller_sub, caller_client, ...rest } = all;
  const r: JournalEntry = caller_sub == null && caller_client == null ? rest : all;
  if (r.event !== "tool_started") return r;
  const alive = pid !== null && running({ pid, start: pid_start });
  return alive ? { ...r, status: "running" } : { ...r, status: "indeterminate", error_code: UNFINISHED };
}

/** The newest row's id (0: none yet). */
export const lastActionId = (db: Database): number =>
  (db.query("SELECT max(id) AS id FROM journal").get() as { id: number | null }).id ?? 0;
