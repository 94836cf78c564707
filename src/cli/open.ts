// What a command that reads the workspace's records opens first: the config, passed through the
// trust gate (an untrusted config cannot point a command at another folder's database, which would
// be opened and migrated), its state folder checked; then the journal, never created by a read.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import type { Effective } from "../config/resolve.ts";
import { checkStateFolder } from "../config/layout.ts";
import { authoredLoader } from "../runtime/authored.ts";
import { loadEffective, type BootInput } from "../runtime/boot.ts";
import { DB_NAME, openState } from "../state/db.ts";
import { trustGate } from "../trust/gate.ts";
import { bootInput, type RunContext } from "./context.ts";
import type { Scanned } from "./flags.ts";
import { stateError } from "./state.ts";

export interface Opened {
  readonly config: Effective;
  readonly input: BootInput;
}

/** The effective config, trusted or narrowing only, with its state folder checked. `scratch`: --scratch counts too. */
export async function openWorkspace(ctx: RunContext, s: Scanned, scratch = false): Promise<Opened> {
  const input = bootInput(ctx, s);
  const { config, file } = await loadEffective(input);
  const authored = await authoredLoader(config); // TOOLGATE_TRUST may pin the authored tools too
  trustGate(
    {
      file,
      values: config.values,
      workspaceFlag: input.workspaceFlag !== undefined,
      ...(scratch ? { scratchFlag: input.scratchFlag !== undefined } : {}),
    },
    {
      env: input.env,
      cwd: input.cwd,
      workspaceFlag: input.workspaceFlag,
      workspace: config.values.workspace as string,
      ...(authored ? { authoredDigests: authored.digests } : {}),
    },
  );
  checkStateFolder(config);
  return { config, input };
}

/** Whether the journal exists: reading never creates a state folder. */
export const hasJournal = (config: Effective): boolean => existsSync(join(config.values.state as string, DB_NAME));

/** The journal opened (to write only when asked); a state that cannot be used names `doing` in its error. */
export function openJournal(config: Effective, doing: string, writable = false): Database {
  try {
    return openState(config.values.state as string, writable);
  } catch (e) {
    throw stateError(config, e, doing);
  }
}

/** `f` with the journal open for reading, closed after; `empty` when there is no journal yet. */
export function readJournal<T>(config: Effective, doing: string, empty: T, f: (db: Database) => T): T {
  if (!hasJournal(config)) return empty;
  const db = openJournal(config, doing);
  try {
    return f(db);
  } finally {
    db.close();
  }
}
