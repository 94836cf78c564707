// A session's journal databases, kept open across its forwarded calls: a call opens none and closes
// none (closing the last connection checkpoints the WAL and syncs it to disk, most of a forwarded
// call's own time). Before each use the database file is looked up again: one removed or replaced
// since (the state folder deleted, another toolgate.db moved in) is opened anew, so a row never
// goes to a file that is no longer the journal.
import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { join } from "node:path";
import { DB_NAME } from "../state/db.ts";

interface Kept {
  readonly db: Database;
  readonly dev: number;
  readonly ino: number;
}

const identity = (path: string) => {
  try {
    const st = statSync(path);
    return { dev: st.dev, ino: st.ino };
  } catch {
    return null;
  }
};

export class KeptState {
  readonly #open = new Map<string, Kept>();
  /** Replaced ones: a call still running may be using one, so they close with the session. */
  readonly #retired: Database[] = [];

  /**
   * The open journal of `stateDir`, opened by `open` (which throws why it cannot) when none is kept
   * or the kept one is no longer its file.
   */
  get(stateDir: string, open: () => Database): Database {
    const path = join(stateDir, DB_NAME);
    const kept = this.#open.get(stateDir);
    const now = identity(path);
    if (kept && now && now.dev === kept.dev && now.ino === kept.ino) return kept.db;
    if (kept) {
      this.#open.delete(stateDir);
      this.#retired.push(kept.db);
    }
    const db = open();
    const opened = identity(path);
    if (opened) this.#open.set(stateDir, { db, ...opened });
    else this.#retired.push(db);
    return db;
  }

  /** How many are open (kept and retired). */
  get size(): number {
    return this.#open.size + this.#retired.length;
  }

  close(): void {
    for (const db of [...this.#open.values()].map((k) => k.db).concat(this.#retired.splice(0))) {
      try {
        db.close();
      } catch {
        // closing what is gone already
      }
    }
    this.#open.clear();
  }
}
