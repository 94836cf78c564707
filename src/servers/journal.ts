// Server starts in the journal: every start of an MCP server or Las leaves a `server_started` row
// (written before the spawn or dial: no row, no start) and every refused start a `server_refused`
// row, so `toolgate log` answers "what ran" for servers as it does for tool calls. Under
// supervision a restart is a `server_restarted` row (also before the spawn) and a child's death
// a `server_exited` row with the reason (error_code mcp.exited, or mcp.server_down past the bound).
import type { Database } from "bun:sqlite";
import { previewArgs } from "../boundary/redact.ts";
import { auditView } from "../http/audit.ts";
import type { Code } from "../result/codes.ts";
import { openState } from "../state/db.ts";
import { appendJournal } from "../state/journal.ts";
import { declaredAt, type DeclaredIn } from "./prompt.ts";
import type { RemoteSpec } from "./specs.ts";

/**
 * `held`: the state database the command already holds open for its calls, once it does (a call's,
 * a session's): a row goes there instead of through a connection of its own (opening one costs
 * about 1.5 ms of a cold call, right before the spawn).
 */
export function serverJournal(d: DeclaredIn, held?: () => Database | undefined) {
  return (
    spec: RemoteSpec,
    outcome: { status: "started" | "restarted" | "refused" | "exited"; code?: Code; message?: string },
  ): void => {
    // A URL's audit view: no userinfo, path, query or fragment (a token in a query stays out).
    const what = spec.transport.kind === "stdio" ? spec.transport.argv : auditView(spec.transport.url);
    const kept = held?.();
    let db: Database;
    try {
      db = kept ?? openState(d.stateDir);
    } catch (e) {
      throw new Error(
        `its journal row cannot be written (state folder ${d.stateDir}: ${(e as Error).message}), so it is ` +
          `not started; fix the folder or choose another with "state"`,
      );
    }
    try {
      appendJournal(
        db,
        {
          time_ms: Date.now(),
          tool: `mcp.connect:${spec.name}`,
          origin: spec.origin,
          digest: null,
          effect: null,
          status: outcome.status,
          error_code: outcome.code ?? null,
          duration_ms: 0,
          // Bounded like a call's preview; bound secrets are in the env or headers, never here.
          args_preview: previewArgs(what, 240),
          result_bytes: 0,
          detail: JSON.stringify({
            declared: declaredAt(spec, d),
            ...(outcome.status === "exited" ? { reason: reasonOf(outcome.message) } : {}),
          }),
        },
        `server_${outcome.status}`,
      );
    } finally {
      if (db !== kept) db.close();
    }
  };
}

/** A death's reason without the child's stderr tail (the server's own words stay out of the journal), bounded. */
const reasonOf = (message = ""): string => message.split("; its stderr ends with:")[0]!.slice(0, 300);
