// Who a served request comes from, under `serve --http --oauth-issuer`: known by its token's
// claims (never by the token), with the narrowing its caller rule gives (src/serve/oauth/callers.ts).
// The hub holds each session to it; the journal and spans name it. Types and a label. Pure.
import type { Profile } from "../runtime/invoke.ts";

/** What the journal and spans record of a caller: the token's subject and client, never the token. */
export interface CallerId {
  readonly sub: string | null;
  readonly client_id: string | null;
}

export interface ServedCaller {
  /** The same for every token of this subject through this client (a session belongs to it). */
  readonly key: string;
  readonly id: CallerId;
  /** The caller's profile over the serve line's (only narrows); absent: the serve line's. */
  readonly profile?: Profile;
  /** The --approve names this caller keeps (a subset of the serve line's); absent: all of them. */
  readonly approved?: ReadonlySet<string>;
  /** The caller rule that admitted it (its index and name, for the operator), if rules are configured. */
  readonly rule?: string;
  /** Requests a minute this caller may send (its rule's requests_per_minute); absent: no limit. */
  readonly perMinute?: number;
  /** Sessions (Mcp-Session-Id) this caller may hold open at once (its rule's concurrent_sessions); absent: no limit. */
  readonly maxSessions?: number;
}

export const callerKey = (id: CallerId): string => JSON.stringify([id.sub, id.client_id]);

/** `alice via team-app`, `ci-bot` (a machine whose subject is its client): for the operator's lines. */
export function callerLabel(id: CallerId): string {
  if (id.sub !== null && id.client_id !== null && id.sub !== id.client_id) return `${id.sub} via ${id.client_id}`;
  return id.sub ?? id.client_id ?? "(anonymous)";
}
