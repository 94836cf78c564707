// Schema migrations, bundled in the binary. Append only: never edit a landed step.
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE journal (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     time_ms INTEGER NOT NULL,
     event TEXT NOT NULL DEFAULT 'tool_finished',
     tool TEXT NOT NULL,
     origin TEXT,
     digest TEXT,
     effect TEXT,
     status TEXT NOT NULL,
     error_code TEXT,
     duration_ms INTEGER NOT NULL,
     args_preview TEXT NOT NULL,
     result_bytes INTEGER NOT NULL,
     detail TEXT
   );
   CREATE TABLE approvals (
     tool TEXT NOT NULL,
     digest TEXT NOT NULL,
     granted_ms INTEGER NOT NULL,
     PRIMARY KEY (tool, digest)
   );`,
  `CREATE TABLE plans (
     lane TEXT PRIMARY KEY,
     version INTEGER NOT NULL,
     steps TEXT NOT NULL,
     updated_ms INTEGER NOT NULL
   );
   CREATE TABLE desks (
     lane TEXT PRIMARY KEY,
     version INTEGER NOT NULL,
     text TEXT NOT NULL,
     updated_ms INTEGER NOT NULL
   );`,
  // The write-ahead row: a call's row is written "tool_started" before its adapter runs, then
  // finished in place. The process (pid and start time) tells a running call from a dead one.
  `ALTER TABLE journal ADD COLUMN pid INTEGER;
   ALTER TABLE journal ADD COLUMN pid_start INTEGER;`,
  // What a tool created in the world (Most chats and messages): kind, id, when, and the call's row.
  `CREATE TABLE created_resources (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     time_ms INTEGER NOT NULL,
     tool TEXT NOT NULL,
     kind TEXT NOT NULL,
     resource_id TEXT NOT NULL,
     journal_id INTEGER
   );`,
  // Delegation: a task's child calls are filed under the parent call's row (`toolgate log` nests them).
  `ALTER TABLE journal ADD COLUMN parent INTEGER;`,
  // Background tasks: one row per task, owned by a lane; `request` is what
  // the foreground admitted (args, grants, approval), cleared when the task ends; the log is kept
  // as bounded chunks (the oldest dropped and counted in log_dropped).
  `CREATE TABLE tasks (
     id TEXT PRIMARY KEY,
     kind TEXT NOT NULL,
     owner TEXT NOT NULL,
     source_tool TEXT NOT NULL,
     args_preview TEXT NOT NULL,
     status TEXT NOT NULL,
     summary TEXT,
     exit_reason TEXT,
     result TEXT,
     write_scope TEXT,
     request TEXT,
     cancel_requested INTEGER NOT NULL DEFAULT 0,
     created_ms INTEGER NOT NULL,
     started_ms INTEGER,
     ended_ms INTEGER,
     pid INTEGER,
     pid_start INTEGER,
     log_dropped INTEGER NOT NULL DEFAULT 0,
     artifacts TEXT
   );
   CREATE INDEX tasks_owner ON tasks (owner, created_ms);
   CREATE INDEX tasks_scope ON tasks (write_scope) WHERE write_scope IS NOT NULL;
   CREATE TABLE task_logs (
     task_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     stream TEXT NOT NULL,
     text TEXT NOT NULL,
     PRIMARY KEY (task_id, seq)
   );`,
  // The marks (pid + start time) of a running task's call trees, for ending them when its
  // supervisor is found gone (tasks.ts reconcile).
  `ALTER TABLE tasks ADD COLUMN trees TEXT;`,
  // The journal without AUTOINCREMENT: its counter was a second page written by every
  // call's started row. Rows are never deleted, so a plain rowid (max + 1) gives the same ids;
  // every row moves over with its id. (created_resources, written rarely, keeps its counter.)
  `CREATE TABLE journal_rowid (
     id INTEGER PRIMARY KEY,
     time_ms INTEGER NOT NULL,
     event TEXT NOT NULL DEFAULT 'tool_finished',
     tool TEXT NOT NULL,
     origin TEXT,
     digest TEXT,
     effect TEXT,
     status TEXT NOT NULL,
     error_code TEXT,
     duration_ms INTEGER NOT NULL,
     args_preview TEXT NOT NULL,
     result_bytes INTEGER NOT NULL,
     detail TEXT,
     pid INTEGER,
     pid_start INTEGER,
     parent INTEGER
   );
   INSERT INTO journal_rowid (id, time_ms, event, tool, origin, digest, effect, status, error_code, duration_ms, args_preview, result_bytes, detail, pid, pid_start, parent)
     SELECT id, time_ms, event, tool, origin, digest, effect, status, error_code, duration_ms, args_preview, result_bytes, detail, pid, pid_start, parent FROM journal;
   DROP TABLE journal;
   ALTER TABLE journal_rowid RENAME TO journal;
   DELETE FROM sqlite_sequence WHERE name = 'journal';`,
  // serve --http --oauth-issuer: who called (its token's sub and client_id, never the token).
  `ALTER TABLE journal ADD COLUMN caller_sub TEXT;
   ALTER TABLE journal ADD COLUMN caller_client TEXT;`,
];
