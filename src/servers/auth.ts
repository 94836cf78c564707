// OAuth for one HTTP server's connection (loaded only for a server over HTTP): the SDK's provider
// over the user's auth store, and the fetch its requests go through. Every host the OAuth flow
// reaches (metadata, registration, token endpoints) is network access: its net permission passes
// first, as the server's own did; the config's headers never leave the server's origin.
import { NetRefused } from "../http/client.ts";
import { urlInWords } from "../http/audit.ts";
import { schemeRefused } from "../http/policy.ts";
import type { PolicyFetch, Target } from "../mcp/connect.ts";
import type { Code } from "../result/codes.ts";
import type { Refusal } from "../result/result.ts";
import { expandHeader, type RemoteSpec } from "./specs.ts";
import { AuthRequired, StoreProvider, type OAuthSettings } from "../auth/provider.ts";
import { AuthStore } from "../auth/store.ts";
import type { Need } from "../permission/types.ts";

/** A need of the server's start, as RemoteSources.checkStart settles it (a session may ask its client first). */
type AuthCheck = { ok: true } | { ok: false; code: Code; message: string; flag?: string };

export interface AuthWiring {
  readonly provider: StoreProvider;
  readonly fetch: PolicyFetch;
  /** Set when the server needs someone to authorize (or a wider scope): the call refuses with mcp.auth_required. */
  needed: AuthRequired | undefined;
  /**
   * Set when a host of the authorization flow was not granted (the connect's refusal is that
   * permission's), or when the server refused a token just issued (mcp.auth_required, --logout).
   */
  refused: { code: Code; message: string; flag?: string } | undefined;
  /** Set when the server (or its authorization server) answered 429: the refusal says it is rate limiting. */
  limited: RateLimit | undefined;
  /** The server as a connect target, through this wiring's fetch and provider. */
  readonly target: Target;
  /** Why the last connect or call failed for want of authorization (or a host's grant), if it did. */
  refusal(server: string): Refusal | undefined;
}

export interface WiringInput {
  /** The user's state folder (outside the workspace), or null: then nothing is stored or read. */
  readonly userState: string | null;
  /** Token and secret values go here as they are read or saved (the views redact them). */
  readonly secrets: string[];
  readonly base: PolicyFetch | undefined;
  readonly check: (need: Need) => AuthCheck | Promise<AuthCheck>;
  readonly authorize?: ConstructorParameters<typeof StoreProvider>[0]["authorize"];
  readonly now: () => number;
  readonly version: string;
}

export function authWiring(spec: RemoteSpec, i: WiringInput): AuthWiring {
  if (spec.transport.kind !== "http") throw new Error(`${spec.name} is not an HTTP server`);
  const { secrets: bound, oauth, headers: templates } = spec.transport;
  const serverUrl = expandHeader(spec.transport.url, bound);
  const settings = Object.fromEntries(
    Object.entries(oauth ?? {}).map(([k, v]) => [k, expandHeader(v, bound)]),
  ) as OAuthSettings;
  const headers = Object.fromEntries(Object.entries(templates).map(([k, v]) => [k, expandHeader(v, bound)]));
  const store = new AuthStore(i.userState, i.secrets);
  const wiring = { needed: undefined, refused: undefined, limited: undefined } as {
    -readonly [K in keyof AuthWiring]: AuthWiring[K];
  };
  const provider = new StoreProvider({
    store,
    serverUrl,
    settings,
    clientName: `toolgate ${i.version}`,
    now: i.now,
    ...(i.authorize ? { authorize: i.authorize } : {}),
    needed: (e) => (wiring.needed = e),
  });
  const origin = new URL(serverUrl).origin;
  // The HTTP adapter's fetch (the URL policy, pins, exact grants); the plain one only where a test gives none.
  const base: PolicyFetch = i.base ?? globalThis.fetch;
  const fetch: PolicyFetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    // A metadata document may name any URL: one that is not http or https (a bare `file:` too) is
    // refused as the URL policy refuses it, before a net grant is asked for a host it does not have.
    const scheme = schemeRefused(url);
    if (scheme) {
      const message = `MCP server "${spec.name}" needs ${urlInWords(url)} for its authorization: ${scheme.refusal.message}`;
      wiring.refused = { code: scheme.refusal.code, message };
      throw new NetRefused(scheme.refusal.code, message, scheme.refusal.details);
    }
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    const r = await i.check({ kind: "net", value: `${url.hostname}:${port}` });
    if (!r.ok) {
      const message =
        `MCP server "${spec.name}" needs ${url.protocol}//${url.host} for its authorization, and net ` +
        `access to "${url.hostname}:${port}" is not granted; run again with --allow-net=${url.hostname}:${port}`;
      wiring.refused = { code: r.code, message, ...(r.flag ? { flag: r.flag } : {}) };
      throw new NetRefused(r.code, message, r.flag ? { flag: r.flag } : undefined);
    }
    let sent = init;
    if (url.origin !== origin && Object.keys(headers).length > 0) {
      const h = new Headers(init?.headers);
      for (const name of Object.keys(headers)) h.delete(name);
      sent = { ...init, headers: h };
    }
    const response = await base(input instanceof Request ? input.url : input, sent);
    if (response.status === 429)
      wiring.limited = { host: url.host, retryAfter: retryAfter(response.headers.get("retry-after")) };
    // A token the authorization server issued during this run, refused by the server itself: it
    // trusts another authorization server now (or another audience). Only forgetting what is
    // stored (the discovery, the binding) helps.
    if (
      url.origin === origin &&
      response.status === 401 &&
      provider.issuedNow &&
      new Headers(sent?.headers).has("authorization")
    ) {
      // The server's words, printable ASCII only and short (the header is the server's to fill).
      const why = /error_description\s*=\s*"([\x20\x21\x23-\x7e]{1,200})"/i.exec(
        response.headers.get("www-authenticate") ?? "",
      )?.[1];
      wiring.refused = {
        code: "mcp.auth_required",
        message:
          `MCP server "${spec.name}" refused the token its authorization server just ` +
          `issued${why ? ` (${why})` : ""}: it may trust another authorization server now; forget what is stored ` +
          `with \`toolgate auth ${spec.name} --logout\`, then authorize again`,
      };
    }
    // A scope the server asks for on a refused request: the next `toolgate auth` requests it.
    if (url.origin === origin && response.status === 403) {
      const scope = challengeScope(response.headers.get("www-authenticate"));
      if (scope) {
        store.update(serverUrl, (rec) => ({ ...rec, wanted_scope: scope }));
        // The SDK may refresh and try again; if that fails too, this is why.
        if (settings.grant !== "client_credentials") wiring.needed = new AuthRequired(scope);
      }
    }
    return response;
  };
  // The session's DELETE left to the reaper goes to the server's own origin, under the same policy.
  const later = i.base?.later;
  if (later)
    fetch.later = (url, method, h) =>
      later(
        url,
        method,
        new URL(url).origin === origin ? h : Object.fromEntries(Object.entries(h).filter(([k]) => !(k in headers))),
      );
  wiring.provider = provider;
  wiring.fetch = fetch;
  wiring.target = {
    kind: "http",
    name: spec.name,
    url: serverUrl,
    headers,
    fetch,
    authProvider: provider,
    ...(spec.transport.sse ? { sse: true } : {}),
  };
  wiring.refusal = (server) =>
    wiring.limited
      ? rateLimited(server, wiring.limited)
      : refusalOf(server, wiring.needed, wiring.refused, Object.keys(headers).length > 0);
  return wiring as AuthWiring;
}

export interface RateLimit {
  readonly host: string;
  /** Retry-After as sent: delta-seconds, or an HTTP date (anything else is dropped). */
  readonly retryAfter?: string;
}

/** Retry-After (RFC 9110): a number of seconds or an HTTP date; any other value is not repeated. */
export function retryAfter(header: string | null): string | undefined {
  const v = header?.trim() ?? "";
  if (/^\d{1,9}$/.test(v)) return v;
  return v.length <= 40 &&
    /^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(v) &&
    !Number.isNaN(Date.parse(v))
    ? v
    : undefined;
}

/** An HTTP 429: the server is rate limiting, not unreachable; when it said how long to wait, that too. */
function rateLimited(server: string, l: RateLimit): Refusal {
  const wait =
    l.retryAfter === undefined
      ? "it sent no Retry-After; try again later"
      : /^\d+$/.test(l.retryAfter)
        ? `it asks to wait ${l.retryAfter} s (Retry-After) before trying again`
        : `it asks to wait until ${l.retryAfter} (Retry-After) before trying again`;
  return {
    code: "mcp.rate_limited",
    message: `MCP server "${server}" is rate limiting: ${l.host} answered HTTP 429 Too Many Requests; ${wait}`,
    details: { server, status: 429, ...(l.retryAfter !== undefined ? { retry_after: l.retryAfter } : {}) },
  };
}

/** `scope` of an insufficient_scope Bearer challenge, else undefined. */
export function challengeScope(header: string | null): string | undefined {
  if (!header || !/error\s*=\s*"?insufficient_scope/i.test(header)) return undefined;
  return /(?:^|[\s,])scope\s*=\s*"([^"]*)"/i.exec(header)?.[1];
}

/** mcp.auth_required naming `toolgate auth SERVER` (and the scope asked for), else a flow host's permission refusal. */
function refusalOf(
  server: string,
  needed: AuthRequired | undefined,
  refused: AuthWiring["refused"],
  hasHeaders: boolean,
): Refusal | undefined {
  if (!needed)
    return (
      refused && {
        code: refused.code,
        message: refused.message,
        ...(refused.flag ? { details: { flag: refused.flag, flags: [refused.flag] } } : {}),
        ...(refused.code === "mcp.auth_required"
          ? { details: { server, command: `toolgate auth ${server} --logout` } }
          : {}),
      }
    );
  const scope = needed.scope ? ` with the scope "${needed.scope}"` : "";
  return {
    code: "mcp.auth_required",
    message: `MCP server "${server}" needs authorization${scope}: run \`toolgate auth ${server}\` (the same flags as this command grant its network)${hasHeaders && !needed.scope ? "; if it takes a key in headers instead of OAuth, check the headers its config entry sends" : ""}`,
    details: { server, command: `toolgate auth ${server}`, ...(needed.scope ? { scope: needed.scope } : {}) },
  };
}
