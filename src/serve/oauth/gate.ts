// The door of `serve --http --oauth-issuer`: the Protected Resource Metadata for anyone, and for
// every other request a bearer token checked (verify.ts), its scopes, and its caller admitted by
// the caller rules. What fails is answered as RFC 6750 says: 401 with a challenge pointing at the
// metadata (error="invalid_token" when a token was sent), 403 insufficient_scope naming the scope,
// 403 for a caller no rule admits. The operator hears of each caller once.
import { callerKey, callerLabel, type ServedCaller } from "../caller.ts";
import { bearerOf, challenge, metadataPaths, metadataUrl, resourceMetadata, type OAuthSettings } from "./resource.ts";
import type { Claims, Verdict } from "./verify.ts";

/** A refused request: its status, its WWW-Authenticate value (if any) and a message for the body. */
export interface Denied {
  readonly status: 401 | 403;
  readonly challenge?: string;
  readonly message: string;
}

export type Admitted =
  | { readonly ok: true; readonly caller: ServedCaller }
  | { readonly ok: false; readonly denied: Denied };

export interface Authenticator {
  /** The resource's URL: what a token's `aud` must name. */
  readonly resource: string;
  /** The metadata document when `path` is one of its paths (GET), else undefined. */
  metadata(path: string): Record<string, unknown> | undefined;
  check(authorization: string | null): Promise<Admitted>;
}

export interface GateDeps {
  readonly settings: OAuthSettings;
  readonly resource: string;
  /** The MCP endpoint's path (/mcp): its suffixed metadata path answers too. */
  readonly endpoint: string;
  readonly verify: (token: string) => Promise<Verdict>;
  /** The caller these claims make, or why no rule admits it. */
  readonly admit: (claims: Claims) => ServedCaller | { readonly refused: string };
  readonly log: (line: string) => void;
}

/** Callers announced on stderr are remembered up to this many (then each is announced again). */
const REMEMBERED = 10_000;

export function gate(d: GateDeps): Authenticator {
  const meta = metadataUrl(d.resource);
  const paths = metadataPaths(d.resource, d.endpoint);
  const doc = resourceMetadata(d.resource, d.settings);
  const seen = new Set<string>();
  const once = (key: string) => {
    if (seen.has(key)) return false;
    if (seen.size >= REMEMBERED) seen.clear();
    seen.add(key);
    return true;
  };
  const unauthorized = (message: string, description?: string): Admitted => ({
    ok: false,
    denied: {
      status: 401,
      challenge: challenge(meta, description === undefined ? {} : { error: "invalid_token", description }),
      message,
    },
  });
  return {
    resource: d.resource,
    metadata: (path) => (paths.has(path) ? doc : undefined),
    async check(authorization) {
      if (authorization === null)
        return unauthorized(
          `Unauthorized: send an access token from ${d.settings.issuer} for ${d.resource} as Authorization: ` +
            `Bearer TOKEN (see ${meta})`,
        );
      const token = bearerOf(authorization);
      if (token === null)
        return unauthorized(
          "Unauthorized: the Authorization header is not a bearer token",
          "the Authorization header is not Bearer TOKEN",
        );
      const v = await d.verify(token);
      if (!v.ok) return unauthorized(`Unauthorized: ${v.description}`, v.description);
      const missing = d.settings.scopes.filter((s) => !v.claims.scopes.includes(s));
      if (missing.length > 0) {
        return {
          ok: false,
          denied: {
            status: 403,
            challenge: challenge(meta, {
              error: "insufficient_scope",
              description: `the token lacks the scope ${missing.join(" ")}`,
              scope: d.settings.scopes,
            }),
            message: `Forbidden: the token lacks the scope ${missing.join(" ")}`,
          },
        };
      }
      const caller = d.admit(v.claims);
      const id = { sub: v.claims.sub ?? null, client_id: v.claims.clientId ?? null };
      const refused = "refused" in caller;
      if (once(`${refused ? "refused" : "admitted"} ${callerKey(id)}`)) {
        d.log(
          refused
            ? `serve: a caller no rule admits was refused: ${callerLabel(id)}`
            : `serve: a new caller: ${callerLabel(id)}${caller.rule ? ` (${caller.rule})` : ""}`,
        );
      }
      if (refused) return { ok: false, denied: { status: 403, message: `Forbidden: ${caller.refused}` } };
      return { ok: true, caller };
    },
  };
}
