// Remembered "always" approvals, in the user's own database (the user's state folder), keyed by
// the workspace's real path, the tool and its digest: a changed digest or another checkout is
// asked again. The workspace's toolgate.db approvals table is never read (a checkout could ship
// one): nothing in the checkout can pre-approve anything, nor can a user state folder that lies
// inside the workspace (HOME is the checkout): it is neither read nor written.
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { stateInWorkspace, tellIgnored } from "../trust/paths.ts";
import { openUserState, USER_DB_NAME } from "./db.ts";

export interface ApprovalMemory {
  isRemembered(tool: string, digest: string): boolean;
  /** False when there is no user state folder to remember in (none, or one inside the workspace). */
  remember(tool: string, digest: string, now: number): boolean;
}

export function userApprovals(userStateDir: string | null, workspace: string): ApprovalMemory {
  let ws: string | undefined;
  const key = () => (ws ??= realOr(workspace));
  return {
    isRemembered(tool, digest) {
      // Nothing remembered yet: no folder or file is made just to look.
      if (userStateDir === null || !existsSync(join(userStateDir, USER_DB_NAME))) return false;
      if (stateInWorkspace(userStateDir, workspace)) return (tellIgnored(userStateDir, "remembered approvals"), false);
      const db = openUserState(userStateDir);
      try {
        return (
          db
            .query("SELECT 1 FROM approvals WHERE workspace = $ws AND tool = $tool AND digest = $digest")
            .get({ ws: key(), tool, digest }) !== null
        );
      } finally {
        db.close();
      }
    },
    remember(tool, digest, now) {
      if (userStateDir === null || stateInWorkspace(userStateDir, workspace)) return false;
      const db = openUserState(userStateDir);
      try {
        db.query(
          "INSERT OR REPLACE INTO approvals (workspace, tool, digest, granted_ms) VALUES ($ws, $tool, $digest, $now)",
        ).run({ ws: key(), tool, digest, now });
        return true;
      } finally {
        db.close();
      }
    },
  };
}

/** One remembered "always": the workspace (its real path), the tool, the digest approved, when. */
export interface Remembered {
  readonly workspace: string;
  readonly tool: string;
  readonly digest: string;
  readonly granted_ms: number;
}

/** What is remembered, for `workspace` (any path to it) or, null, for every workspace; nothing is made to look. */
export function rememberedApprovals(userStateDir: string, workspace: string | null): Remembered[] {
  if (!existsSync(join(userStateDir, USER_DB_NAME))) return [];
  const db = openUserState(userStateDir);
  try {
    const sql = `SELECT workspace, tool, digest, granted_ms FROM approvals ${workspace === null ? "" : "WHERE workspace = $ws "}ORDER BY workspace, tool, granted_ms`;
    return db.query(sql).all(workspace === null ? {} : { ws: realOr(workspace) }) as Remembered[];
  } finally {
    db.close();
  }
}

/** Forgets the remembered approvals in `workspace` of the tools `which` picks (every digest); returns what was forgotten. */
export function forgetApprovals(
  userStateDir: string,
  workspace: string,
  which: (tool: string) => boolean,
): Remembered[] {
  const gone = rememberedApprovals(userStateDir, workspace).filter((r) => which(r.tool));
  if (gone.length === 0) return gone;
  const db = openUserState(userStateDir);
  try {
    const del = db.query("DELETE FROM approvals WHERE workspace = $ws AND tool = $tool AND digest = $digest");
    db.transaction(() => gone.forEach((r) => del.run({ ws: r.workspace, tool: r.tool, digest: r.digest })))();
    return gone;
  } finally {
    db.close();
  }
}

function realOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}
