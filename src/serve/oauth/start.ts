// What `serve --http --oauth-issuer` does before it listens: the issuer's URL checked, its metadata
// discovered (discovery.ts), its key set loaded (keys.ts). Any of these failing stops the start:
// a server that could verify no token would answer every caller 401. Loaded only on this path,
// with jose (start-up is measured).
import type { ServedCaller } from "../caller.ts";
import { discover, endpointProblem, type Get } from "./discovery.ts";
import { gate, type Authenticator } from "./gate.ts";
import { KeySet } from "./keys.ts";
import type { OAuthSettings } from "./resource.ts";
import { verifier, type Claims } from "./verify.ts";

export interface OAuthDeps {
  readonly get: Get;
  readonly now: () => number;
  readonly log: (line: string) => void;
  readonly admit: (claims: Claims) => ServedCaller | { readonly refused: string };
}

export interface PreparedOAuth {
  readonly keys: KeySet;
  /** The door for the resource at `url` (this server's /mcp URL once it listens, unless an audience is configured). */
  at(url: string, endpoint: string): Authenticator;
}

export async function prepareOAuth(
  s: OAuthSettings,
  d: OAuthDeps,
): Promise<{ ok: true; value: PreparedOAuth } | { ok: false; problem: string }> {
  const bad =
    endpointProblem(s.issuer, `${s.from} issuer`) ??
    (s.jwksUri === undefined ? null : endpointProblem(s.jwksUri, "serve.oauth.jwks_uri")) ??
    (s.audience === undefined ? null : audienceProblem(s.audience));
  if (bad !== null) return { ok: false, problem: bad };
  let jwks = s.jwksUri;
  const found = await discover(s.issuer, d.get);
  if (!found.ok && jwks === undefined) return found;
  if (!found.ok) d.log(`serve: ${found.problem}; using serve.oauth.jwks_uri`);
  if (found.ok) {
    jwks ??= found.value.jwks_uri;
    const problem = endpointProblem(jwks, `the jwks_uri of ${found.value.from}`);
    if (problem !== null) return { ok: false, problem };
  }
  const keys = new KeySet({ url: jwks!, get: d.get, now: d.now, log: d.log });
  const loaded = await keys.load();
  if (loaded !== null) return { ok: false, problem: loaded };
  return {
    ok: true,
    value: {
      keys,
      at: (url, endpoint) => {
        const resource = s.audience ?? url;
        const verify = verifier({ issuer: s.issuer, audience: resource, keys, groupsClaim: s.groupsClaim, now: d.now });
        return gate({ settings: s, resource, endpoint, verify, admit: d.admit, log: d.log });
      },
    },
  };
}

function audienceProblem(audience: string): string | null {
  try {
    const u = new URL(audience);
    return u.protocol === "https:" || u.protocol === "http:"
      ? null
      : `serve.oauth.audience ${audience} is not an http(s) URL`;
  } catch {
    return (
      `serve.oauth.audience ${JSON.stringify(audience)} is not a URL: it is this server's URL as its callers ` +
      `reach it (e.g. https://tools.example.com/mcp)`
    );
  }
}
