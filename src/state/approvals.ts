// Remembered "always" approvals, in the user's own database (the user's state folder), keyed by
// the workspace's real path, the caller that answered, the tool and its digest: a changed digest,
// another checkout or another caller is asked again. The caller is a served one's token subject
// and client (serve --http --oauth-issuer), or none: the user's own answers (a terminal, stdio, the
// static token), which a served caller never reads. The workspace's toolgate.db approvals table is
// never read (a checkout could ship one): nothing in the checkout can pre-approve anything, nor can
// a user state folder that lies inside the workspace (HOME is the checkout): it is neither read nor written.
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { stateInWorkspace, tellIgnored } from "../trust/paths.ts";
import { openUserState, USER_DB_NAME } from "./db.ts";

/** A served caller, as its token names it; undefined: the user's own. */
export interface Answerer {
  readonly sub: string | null;
  readonly client_id: string | null;
}

export interface ApprovalMemory {
  isRemembered(tool: string, digest: string, caller?: Answerer): boolean;
  /** False when there is no user state folder to remember in (none, or one inside the workspace). */
  remember(tool: string, digest: string, now: number, caller?: Answerer): boolean;
}

/** The caller column: '' for the user's own, else the caller's subject and client as a JSON pair. */
const callerColumn = (c: Answerer | undefined): string => (c ? JSON.stringify([c.sub, c.client_id]) : "");

export function userApprovals(userStateDir: string | null, workspace: string): ApprovalMemory {
  let ws: string | undefined;
  const key = () => (ws ??= realOr(workspace));
  return {
    isRemembered(tool, digest, caller) {
      // Nothing remembered yet: no folder or file is made just to look.
      if (userStateDir === null || !existsSync(join(userStateDir, USER_DB_NAME))) return false;
      if (stateInWorkspace(userStateDir, workspace)) return (tellIgnored(userStateDir, "remembered approvals"), false);
      const db = openUserState(userStateDir);
      try {
        return (
          db
            .query(
              "SELECT 1 FROM approvals WHERE workspace = $ws AND caller = $caller AND tool = $tool AND " +
                "digest = $digest",
            )
            .get({ ws: key(), caller: callerColumn(caller), tool, digest }) !== null
        );
      } finally {
        db.close();
      }
    },
    remember(tool, digest, now, caller) {
      if (userStateDir === null || stateInWorkspace(userStateDir, workspace)) return false;
      const db = openUserState(userStateDir);
      try {
        db.query(
          "INSERT OR REPLACE INTO approvals (workspace, caller, tool, digest, granted_ms) VALUES ($ws, " +
            "$caller, $tool, $digest, $now)",
        ).run({ ws: key(), caller: callerColumn(caller), tool, digest, now });
        return true;
      } finally {
        db.close();
      }
    },
  };
}

/**
 * One remembered "always": the workspace (its real path), the tool, the digest approved, when;
 * a served caller's also names it (caller_sub, caller_client).
 */
export interface Remembered {
  readonly workspace: string;
  readonly tool: string;
  readonly digest: string;
  readonly granted_ms: number;
  readonly caller_sub?: string | null;
  readonly caller_client?: string | null;
}

/** The caller a row names, undefined for the user's own. */
export const answererOf = (r: Remembered): Answerer | undefined =>
  r.caller_sub === undefined && r.caller_client === undefined
    ? undefined
    : { sub: r.caller_sub ?? null, client_id: r.caller_client ?? null };

/** What is remembered, for `workspace` (any path to it) or, null, for every workspace; nothing is made to look. */
export function rememberedApprovals(userStateDir: string, workspace: string | null): Remembered[] {
  if (!existsSync(join(userStateDir, USER_DB_NAME))) return [];
  const db = openUserState(userStateDir);
  try {
    const sql =
      `SELECT workspace, tool, digest, granted_ms, caller FROM approvals ` +
      `${workspace === null ? "" : "WHERE workspace = $ws "}ORDER BY workspace, tool, caller, granted_ms`;
    const rows = db.query(sql).all(workspace === null ? {} : { ws: realOr(workspace) }) as (Remembered & {
      caller: string;
    })[];
    return rows.map(({ caller, ...r }) => {
      if (caller === "") return r;
      const [sub, client] = JSON.parse(caller) as [string | null, string | null];
      return { ...r, caller_sub: sub, caller_client: client };
    });
  } finally {
    db.close();
  }
}

/**
 * Forgets the remembered approvals in `workspace` of the tools `which` picks (every digest, every caller); returns
 * what was forgotten.
 */
export function forgetApprovals(
  userStateDir: string,
  workspace: string,
  which: (tool: string) => boolean,
): Remembered[] {
  const gone = rememberedApprovals(userStateDir, workspace).filter((r) => which(r.tool));
  if (gone.length === 0) return gone;
  const db = openUserState(userStateDir);
  try {
    const del = db.query(
      "DELETE FROM approvals WHERE workspace = $ws AND caller = $caller AND tool = $tool AND digest = $digest",
    );
    db.transaction(() => {
      for (const r of gone)
        del.run({ ws: r.workspace, caller: callerColumn(answererOf(r)), tool: r.tool, digest: r.digest });
    })();
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
