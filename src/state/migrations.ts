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
];
