// What `toolgate log` asks of the journal, from its command line: the window's size and the
// filters (tools, outcomes, since, callers), each checked before anything is read.
import { usageError } from "../result/result.ts";
import type { ActionFilter } from "./actions.ts";

/** How many actions `toolgate log` shows without --last. */
export const ACTION_WINDOW = 100;

export const STATUSES = ["success", "failed", "denied", "indeterminate", "running"];
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

export interface LogAsk {
  readonly tools: readonly string[];
  /** --status values as given: repeated, or comma lists. */
  readonly statuses: readonly string[];
  readonly since?: string;
  readonly callers: readonly string[];
}

/** The journal filter a command line asks for. */
export function actionFilter(ask: LogAsk, now: number): ActionFilter {
  const statuses = ask.statuses
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
  for (const st of statuses)
    if (!STATUSES.includes(st))
      throw usageError(
        `--status ${JSON.stringify(st)}: not an outcome the journal shows`,
        `the outcomes are: ${STATUSES.join(", ")}`,
      );
  return {
    ...(ask.tools.length ? { tools: ask.tools } : {}),
    ...(statuses.length ? { statuses: new Set(statuses) } : {}),
    ...(ask.since === undefined ? {} : { sinceMs: parseSince(ask.since, now) }),
    ...(ask.callers.length ? { callers: ask.callers } : {}),
  };
}

/** --last: a whole number of actions, at least 1 (default the window). */
export function windowSize(raw: string | undefined): number {
  const last = raw === undefined ? ACTION_WINDOW : Number(raw);
  if (!Number.isInteger(last) || last < 1)
    throw usageError(`--last ${raw}: expected a whole number of actions, at least 1`);
  return last;
}

/** --resources lists created resources: the journal's filters, and --follow, do not apply to it. */
export function resourcesAlone(filter: ActionFilter, follow: boolean): void {
  if (Object.keys(filter).length > 0 || follow)
    throw usageError(
      "--resources lists created resources: --tool, --status, --since, --caller and --follow are for the " +
        "journal's calls",
      "drop them, or --resources",
    );
}
