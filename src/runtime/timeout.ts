// `call --timeout SECS`: the caller's deadline for one call, bounded by what the tool allows (a
// server's timeout_secs, an authored tool's timeout_secs, bash.max_timeout_secs, the default
// deadline of a built-in); a tool that times each of its own runs (dev_check, task) has no bound.
import type { Entry } from "../catalog/catalog.ts";
import type { TimeLimit } from "../catalog/declare.ts";
import type { ConfigData } from "../config/schema.ts";
import { DEADLINE_MS } from "./call-deps.ts";

/** The longest `--timeout` accepted at all: a timer cannot wait longer (2^31 - 1 ms). */
export const MAX_TIMEOUT_SECS = 2_000_000;

export function timeLimitOf(entry: Entry, config: ConfigData | undefined): TimeLimit | undefined {
  const time = entry.terms.time;
  if (time.kind === "default") return { secs: DEADLINE_MS / 1000, setBy: "the deadline of a built-in's call" };
  return time.limit?.(config);
}

/** The deadline a call gets for `secs`, and the limit that cut it down when it did. */
export function boundTimeout(
  entry: Entry,
  secs: number,
  config: ConfigData | undefined,
): { secs: number; limit?: TimeLimit } {
  const limit = timeLimitOf(entry, config);
  return limit === undefined || secs <= limit.secs ? { secs } : { secs: limit.secs, limit };
}
