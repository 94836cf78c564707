// Schema of the user's own database (approvals.db in the user's state folder). Append only.
// Remembered approvals are keyed by the workspace's real path too: one checkout's "always"
// never approves the same tool in another, and by the caller that answered.
export const USER_MIGRATIONS: readonly string[] = [
  `CREATE TABLE approvals (
     workspace TEXT NOT NULL,
     tool TEXT NOT NULL,
     digest TEXT NOT NULL,
     granted_ms INTEGER NOT NULL,
     PRIMARY KEY (workspace, tool, digest)
   );`,
  // And by who answered: a served caller's "always" (serve --http --oauth-issuer) is its own; ''
  // is the user's own (a terminal, stdio, the static token), as every row remembered before.
  `CREATE TABLE approvals_by_caller (
     workspace TEXT NOT NULL,
     caller TEXT NOT NULL DEFAULT '',
     tool TEXT NOT NULL,
     digest TEXT NOT NULL,
     granted_ms INTEGER NOT NULL,
     PRIMARY KEY (workspace, caller, tool, digest)
   );
   INSERT INTO approvals_by_caller (workspace, caller, tool, digest, granted_ms)
     SELECT workspace, '', tool, digest, granted_ms FROM approvals;
   DROP TABLE approvals;
   ALTER TABLE approvals_by_caller RENAME TO approvals;`,
];
