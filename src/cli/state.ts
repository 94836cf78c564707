// The state database for a command: probed before anything starts, opened before the call
// runs. A state that cannot be written is a boot failure (exit 5) naming the folder, why, and
// where it was set.
import type { Database } from "bun:sqlite";
import type { Effective } from "../config/resolve.ts";
import { bootError, type CliError } from "../result/result.ts";
import { openState } from "../state/db.ts";
import { probeState, whyUnusable } from "../state/unusable.ts";
import { StateFolderRefused } from "../fs/state-folder.ts";

export function stateError(config: Effective, e: unknown, doing: string): CliError {
  // Not toolgate's own (a link, a clone, another user's): its own words say what and how to clear it.
  if (e instanceof StateFolderRefused) return bootError(e.message, e.hint);
  const dir = config.values.state;
  const origin = config.leaves.get("state")?.origin ?? "default";
  return bootError(
    `the state folder ${dir} cannot be written (${whyUnusable(e)}); ${doing}`,
    `toolgate keeps its journal there (state, from ${origin}): make it a writable folder with free space, or ` +
      `set "state" in the config to one`,
  );
}

/** Before anything starts: a state that cannot be used fails the boot, and nothing is written. */
export function checkState(config: Effective): void {
  const problem = probeState(config.values.state);
  if (problem) throw stateError(config, problem, "nothing was run");
}

export function openChecked(config: Effective): Database {
  try {
    return openState(config.values.state);
  } catch (e) {
    throw stateError(config, e, "nothing was run");
  }
}
