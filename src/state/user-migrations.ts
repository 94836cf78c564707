// Schema of the user's own database (approvals.db in the user's state folder). Append only.
// Remembered approvals are keyed by the workspace's real path too: one checkout's "always"
// never approves the same tool in another.
export const USER_MIGRATIONS: readonly string[] = [
  `CREATE TABLE approvals (
     workspace TEXT NOT NULL,
     tool TEXT NOT NULL,
     digest TEXT NOT NULL,
     granted_ms INTEGER NOT NULL,
     PRIMARY KEY (workspace, tool, digest)
   );`,
];
