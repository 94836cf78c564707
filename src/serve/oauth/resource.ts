// `serve --http --oauth-issuer`: this server as an OAuth 2.1 protected resource. What it publishes
// (Protected Resource Metadata, RFC 9728) and how it answers a request without a usable token
// (RFC 6750's WWW-Authenticate, pointing at that metadata as MCP's authorization spec asks). Pure.

export interface OAuthSettings {
  /** The authorization server whose tokens are accepted (its `iss`). */
  readonly issuer: string;
  /** The resource (and the `aud` a token must carry); undefined: this server's own URL once it listens. */
  readonly audience?: string;
  /** Scopes every request's token must hold (all of them), also published as scopes_supported. */
  readonly scopes: readonly string[];
  /** The key set's URL instead of the one the issuer's metadata names. */
  readonly jwksUri?: string;
  /** The claim a token lists its groups in (default "groups"). */
  readonly groupsClaim: string;
  /** Where the settings came from, for messages: "--oauth-issuer" or "serve.oauth". */
  readonly from: string;
}

export const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/** The metadata's URL for `resource` (RFC 9728 §3.1: the well-known segment before the resource's path). */
export function metadataUrl(resource: string): string {
  const u = new URL(resource);
  const path = u.pathname === "/" ? "" : u.pathname;
  return `${u.origin}${WELL_KNOWN}${path}`;
}

/** The paths on this server that answer the metadata: the bare one and the one suffixed with the resource's path. */
export function metadataPaths(resource: string, endpoint: string): ReadonlySet<string> {
  const own = new URL(resource).pathname;
  return new Set([WELL_KNOWN, `${WELL_KNOWN}${endpoint}`, ...(own === "/" ? [] : [`${WELL_KNOWN}${own}`])]);
}

/** The Protected Resource Metadata document. */
export function resourceMetadata(
  resource: string,
  s: Pick<OAuthSettings, "issuer" | "scopes">,
): Record<string, unknown> {
  return {
    resource,
    authorization_servers: [s.issuer],
    ...(s.scopes.length > 0 ? { scopes_supported: [...s.scopes] } : {}),
    bearer_methods_supported: ["header"],
    resource_name: "toolgate",
  };
}

export interface Problem {
  readonly error?: "invalid_token" | "insufficient_scope" | "invalid_request";
  readonly description?: string;
  /** insufficient_scope: the scopes the request needs. */
  readonly scope?: readonly string[];
}

/** RFC 6750 §3 quoted values hold no `"` or `\` and only printable ASCII: anything else becomes "?". */
const quoted = (s: string) => `"${s.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "?")}"`;

/** The WWW-Authenticate value: `Bearer resource_metadata="…"`, with the error when a token was sent. */
export function challenge(metadata: string, p: Problem = {}): string {
  const parts = [`resource_metadata=${quoted(metadata)}`];
  if (p.error) parts.push(`error=${quoted(p.error)}`);
  if (p.description) parts.push(`error_description=${quoted(p.description)}`);
  if (p.scope && p.scope.length > 0) parts.push(`scope=${quoted(p.scope.join(" "))}`);
  return `Bearer ${parts.join(", ")}`;
}

/** The bearer token of an Authorization header (RFC 6750 §2.1), null when there is none or it is malformed. */
export function bearerOf(authorization: string | null): string | null {
  const m = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i.exec(authorization ?? "");
  return m ? m[1]! : null;
}
