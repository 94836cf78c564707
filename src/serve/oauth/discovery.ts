// The authorization server behind --oauth-issuer, found as MCP's authorization spec says a client
// finds it: RFC 8414 metadata, then OpenID Connect discovery (path inserted, then appended), the
// first that answers with JSON whose `issuer` is exactly the one configured (RFC 8414 §3.3: a
// document naming another issuer is refused, whoever serves it). The key set's URL comes from it.

/** What one GET gave: a status and the parsed JSON body (undefined: not JSON), or why none came. */
export type Fetched = { readonly status: number; readonly json: unknown } | { readonly problem: string };
export type Get = (url: string) => Promise<Fetched>;

export interface ServerMetadata {
  readonly issuer: string;
  readonly jwks_uri: string;
  /** Where the metadata was read. */
  readonly from: string;
}

/** The discovery URLs for `issuer`, in the order they are tried. */
export function discoveryUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/$/, "");
  if (path === "")
    return [`${u.origin}/.well-known/oauth-authorization-server`, `${u.origin}/.well-known/openid-configuration`];
  return [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${u.origin}/.well-known/openid-configuration${path}`,
    `${u.origin}${path}/.well-known/openid-configuration`,
  ];
}

/**
 * Why an issuer or key set URL cannot be used, or null: https, or http on a loopback address (a
 * development issuer on this machine); no userinfo, query or fragment.
 */
export function endpointProblem(raw: string, what: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return `${what} ${JSON.stringify(raw)} is not a URL`;
  }
  const loopback = u.hostname === "localhost" || /^127\./.test(u.hostname) || u.hostname === "[::1]";
  if (u.protocol !== "https:" && !(u.protocol === "http:" && loopback))
    return `${what} ${raw} is not https (plain http is allowed only on a loopback address)`;
  if (u.username !== "" || u.password !== "")
    return `${what} ${u.origin}: a URL with a user name or password is refused`;
  if (u.search !== "" || u.hash !== "") return `${what} ${raw} has a query or fragment`;
  return null;
}

export async function discover(
  issuer: string,
  get: Get,
): Promise<{ ok: true; value: ServerMetadata } | { ok: false; problem: string }> {
  const tried: string[] = [];
  for (const url of discoveryUrls(issuer)) {
    const r = await get(url);
    if ("problem" in r) {
      tried.push(`${url}: ${r.problem}`);
      continue;
    }
    if (r.status !== 200 || r.json === null || typeof r.json !== "object") {
      tried.push(`${url}: ${r.status === 200 ? "not a JSON object" : `HTTP ${r.status}`}`);
      continue;
    }
    const m = r.json as Record<string, unknown>;
    if (m.issuer !== issuer)
      return {
        ok: false,
        problem:
          `${url} names the issuer ${JSON.stringify(m.issuer)}, not ${issuer}: write the issuer exactly as ` +
          `the authorization server names itself`,
      };
    if (typeof m.jwks_uri !== "string")
      return { ok: false, problem: `${url} names no jwks_uri: set serve.oauth.jwks_uri` };
    return { ok: true, value: { issuer, jwks_uri: m.jwks_uri, from: url } };
  }
  return { ok: false, problem: `no authorization server metadata for ${issuer} (${tried.join("; ")})` };
}
