// The one SQLite database in the state folder (WAL, busy timeout, bundled migrations).
// Only this module opens SQLite; it is safe under many concurrent `toolgate call` processes.
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { makeStateFolder } from "./folder.ts";
import { MIGRATIONS } from "./migrations.ts";

export const DB_NAME = "toolgate.db";
const BUSY_TIMEOUT_MS = 10_000;

export function openState(stateDir: string): Database {
  makeStateFolder(stateDir);
  const db = new Database(join(stateDir, DB_NAME), { create: true, strict: true });
  db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.run("PRAGMA journal_mode = WAL");
  db.run("PRAGMA synchronous = NORMAL");
  migrate(db);
  return db;
}

function migrate(db: Database): void {
  const version = () => (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  if (version() >= MIGRATIONS.length) return;
  // IMMEDIATE takes the write lock first, so two processes never run the same step twice.
  db.transaction(() => {
    for (let v = version(); v < MIGRATIONS.length; v++) {
      db.run(MIGRATIONS[v]!);
      db.run(`PRAGMA user_version = ${v + 1}`);
    }
  }).immediate();
}
