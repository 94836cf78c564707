// The state database for a command: opened and checked before anything runs. A state that
// cannot be written is a boot failure (exit 5) naming the folder, why, and where it was set.
import type { Database } from "bun:sqlite";
import type { Effective } from "../config/resolve.ts";
import { bootError, type CliError } from "../result/result.ts";
import { openState } from "../state/db.ts";
import { whyUnusable } from "../state/unusable.ts";

export function stateError(config: Effective, e: unknown, doing: string): CliError {
  const dir = config.values.state as string;
  const origin = config.leaves.get("state")?.origin ?? "default";
  return bootError(
    `the state folder ${dir} cannot be written (${whyUnusable(e)}); ${doing}`,
    `toolgate keeps its journal there (state, from ${origin}): make it a writable folder with free space, or set "state" in the config to one`,
  );
}

export function openChecked(config: Effective): Database {
  try {
    return openState(config.values.state as string);
  } catch (e) {
    throw stateError(config, e, "nothing was run");
  }
}
