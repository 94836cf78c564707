// The one SQLite database in the state folder (WAL, busy timeout, bundled migrations).
// Only this module opens SQLite; it is safe under many concurrent `toolgate call` processes.
import { Database } from "bun:sqlite";
import { closeSync, constants, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { join } from "node:path";
import { makeStateFolder } from "./folder.ts";
import { stateFolderProblem } from "../fs/state-folder.ts";
import { MIGRATIONS } from "./migrations.ts";
import { adoptJournal, type JournalTap } from "./journal.ts";
import { USER_MIGRATIONS } from "./user-migrations.ts";

export const DB_NAME = "toolgate.db";
/** The user's own database, in the user's state folder (remembered approvals). */
export const USER_DB_NAME = "approvals.db";
const BUSY_TIMEOUT_MS = 10_000;
/** WAL pages past which a long-lived connection checkpoints inline all the same (~16 MB; SQLite's default is 1,000). */
const BACKSTOP_PAGES = 4000;

/**
 * The workspace's database. `writes`: this process will journal (a call, serve, a session, a task's
 * supervisor), so a WAL's header is written as it opens (see open()); a command that only reads
 * (`log`, `tasks`) passes false and commits nothing it need not.
 */
export function openState(stateDir: string, writes = true): Database {
  makeStateFolder(stateDir);
  const path = join(stateDir, DB_NAME);
  // Made 0600 by toolgate, never through a link (SQLite gives its WAL and SHM files the same mode).
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600));
  } catch {
    // There already (or not makeable: the open below says why).
  }
  return open(path, MIGRATIONS, writes);
}

/**
 * A task child's journal (its own state folder) moved into `db` under the parent call, `secrets` redacted; 0 when it
 * wrote none.
 */
export function adoptChildState(
  db: Database,
  childStateDir: string,
  parent: number | null,
  secrets: readonly string[] = [],
  tap?: JournalTap,
): number {
  if (!existsSync(join(childStateDir, DB_NAME))) return 0;
  // The child could write its folder: a database (or its WAL) that is a link is not opened.
  if (stateFolderProblem(childStateDir, true) !== null) return 0;
  const child = open(join(childStateDir, DB_NAME), MIGRATIONS, false);
  try {
    return adoptJournal(db, child, parent, secrets, tap);
  } finally {
    child.close();
  }
}

/**
 * A long-lived connection (serve): the WAL checkpoint moves off the calls into idle time. A
 * checkpoint syncs the WAL and the database file, which on a busy disk stalls the write that
 * triggers it for tens of ms (SQLite's default: every 1,000 pages, about every 500 calls).
 * Call the returned function after each write: once none came for `idleMs`, a PASSIVE checkpoint
 * runs; past BACKSTOP_PAGES, SQLite's own inline checkpoint still bounds the WAL.
 */
export function checkpointWhenIdle(db: Database, idleMs = 250): () => void {
  db.run(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  let last = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (ms: number) => {
    timer = setTimeout(tick, ms);
    timer.unref();
  };
  const tick = () => {
    const wait = last + idleMs - performance.now();
    if (wait > 0) return arm(wait);
    timer = undefined;
    try {
      db.run("PRAGMA wal_checkpoint(PASSIVE)");
    } catch {
      // Closed, or busy: the next idle moment (or SQLite's own backstop) checkpoints.
    }
  };
  return () => {
    last = performance.now();
    if (timer === undefined) arm(idleMs);
  };
}

/** The user's database (outside every checkout), in a 0700 folder made on first use. */
export function openUserState(userStateDir: string): Database {
  mkdirSync(userStateDir, { recursive: true, mode: 0o700 });
  return open(join(userStateDir, USER_DB_NAME), USER_MIGRATIONS, false);
}

/**
 * SQLite answers SQLITE_BUSY at once, without its busy handler, in a few cases (a WAL another
 * process is recovering or creating, a journal-mode switch racing another opener): opening is
 * retried for as long as the busy timeout would have waited, so concurrent first calls never fail.
 */
function open(path: string, migrations: readonly string[], writes: boolean): Database {
  const until = performance.now() + BUSY_TIMEOUT_MS;
  for (let pause = 5; ; pause = Math.min(pause * 2, 200)) {
    let db: Database | undefined;
    try {
      db = new Database(path, { create: true, strict: true });
      db.run(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      db.run("PRAGMA journal_mode = WAL");
      db.run("PRAGMA synchronous = NORMAL");
      migrate(db, migrations);
      if (writes && walBytes(path) === 0) writeWalHeader(db);
      return db;
    } catch (e) {
      db?.close();
      if (!String((e as { code?: unknown }).code ?? "").startsWith("SQLITE_BUSY") || performance.now() >= until)
        throw e;
      Bun.sleepSync(pause);
    }
  }
}

/** The size of `path`'s WAL (0: none yet, or not yet written: its first commit writes the header). */
function walBytes(path: string): number {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

function migrate(db: Database, migrations: readonly string[]): void {
  if (version(db) >= migrations.length) return;
  // IMMEDIATE takes the write lock first, so two processes never run the same step twice.
  db.transaction(() => {
    for (let v = version(db); v < migrations.length; v++) {
      db.run(migrations[v]!);
      db.run(`PRAGMA user_version = ${v + 1}`);
    }
  }).immediate();
}

const version = (db: Database): number =>
  (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;

/**
 * A connection that will write, finding no WAL or an empty one (the last connection to close
 * removes it, so every cold process finds none): its first commit would write the new WAL's header,
 * which SQLite then syncs with the WAL's folder, 1-4 ms before this process's first row (the
 * write-ahead row, before the effect). The header is written here instead, unsynced, by a commit
 * that changes nothing (the version, rewritten as it is under the write lock; migrations have run,
 * under NORMAL, before this). No checkpoint can run in it (autocheckpoint off for this commit),
 * and NORMAL is back before anything else, even a failure's close. What it gives up: a power loss
 * before the next sync (any checkpoint, the close's included) can drop this process's rows, which
 * NORMAL allows anyway; the database file is written only by a checkpoint, which syncs the WAL
 * first, so it cannot be corrupted. A connection that only reads commits nothing.
 */
function writeWalHeader(db: Database): void {
  const autocheckpoint = (db.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number })
    .wal_autocheckpoint;
  db.run("PRAGMA wal_autocheckpoint = 0");
  db.run("PRAGMA synchronous = OFF");
  try {
    db.transaction(() => db.run(`PRAGMA user_version = ${version(db)}`)).immediate();
  } finally {
    db.run("PRAGMA synchronous = NORMAL");
    db.run(`PRAGMA wal_autocheckpoint = ${autocheckpoint}`);
  }
}
