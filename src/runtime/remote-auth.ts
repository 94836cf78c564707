// OAuth for one HTTP server's connection (loaded only for a server over HTTP): the SDK's provider
// over the user's auth store, and the fetch its requests go through. Every host the OAuth flow
// reaches (metadata, registration, token endpoints) is network access: its net permission passes
// first, as the server's own did; the config's headers never leave the server's origin.
import { NetRefused } from "../http/client.ts";
import type { PolicyFetch } from "../mcp/connect.ts";
import { AuthRequired, StoreProvider, type OAuthSettings } from "../auth/provider.ts";
import { AuthStore } from "../auth/store.ts";
import type { Need } from "../permission/types.ts";

/** A need of the server's start, as RemoteSources.checkStart settles it (a session may ask its client first). */
type AuthCheck = { ok: true } | { ok: false; code: string; message: string; flag?: string };

export interface AuthWiring {
  readonly provider: StoreProvider;
  readonly fetch: PolicyFetch;
  /** Set when the server needs someone to authorize (or a wider scope): the call refuses with mcp.auth_required. */
  needed: AuthRequired | undefined;
  /** Set when a host of the authorization flow was not granted: the connect's refusal is that permission's. */
  refused: { code: string; message: string; flag?: string } | undefined;
}

export interface WiringInput {
  readonly name: string;
  readonly serverUrl: string;
  readonly settings: OAuthSettings;
  /** The user's state folder (outside the workspace), or null: then nothing is stored or read. */
  readonly userState: string | null;
  /** Token and secret values go here as they are read or saved (the views redact them). */
  readonly secrets: string[];
  readonly base: PolicyFetch | undefined;
  readonly configuredHeaders: readonly string[];
  readonly check: (need: Need) => AuthCheck | Promise<AuthCheck>;
  readonly authorize?: ConstructorParameters<typeof StoreProvider>[0]["authorize"];
  readonly now: () => number;
  readonly version: string;
}

export function authWiring(i: WiringInput): AuthWiring {
  const store = new AuthStore(i.userState, i.secrets);
  const wiring = { needed: undefined, refused: undefined } as { -readonly [K in keyof AuthWiring]: AuthWiring[K] };
  const provider = new StoreProvider({
    store,
    serverUrl: i.serverUrl,
    settings: i.settings,
    clientName: `toolgate ${i.version}`,
    now: i.now,
    ...(i.authorize ? { authorize: i.authorize } : {}),
    needed: (e) => (wiring.needed = e),
  });
  const origin = new URL(i.serverUrl).origin;
  // The HTTP adapter's fetch (the URL policy, pins, exact grants); the plain one only where a test gives none.
  const base: PolicyFetch = i.base ?? globalThis.fetch;
  const fetch: PolicyFetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const port = url.port || (url.protocol === "https:" ? "443" : "80");
    const r = await i.check({ kind: "net", value: `${url.hostname}:${port}` });
    if (!r.ok) {
      const message = `MCP server "${i.name}" needs ${url.protocol}//${url.host} for its authorization, and net access to "${url.hostname}:${port}" is not granted; run again with --allow-net=${url.hostname}:${port}`;
      wiring.refused = { code: r.code, message, ...(r.flag ? { flag: r.flag } : {}) };
      throw new NetRefused(r.code, message, r.flag ? { flag: r.flag } : undefined);
    }
    let sent = init;
    if (url.origin !== origin && i.configuredHeaders.length > 0) {
      const headers = new Headers(init?.headers);
      for (const h of i.configuredHeaders) headers.delete(h);
      sent = { ...init, headers };
    }
    const response = await base(input instanceof Request ? input.url : input, sent);
    // A scope the server asks for on a refused request: the next `toolgate auth` requests it.
    if (url.origin === origin && response.status === 403) {
      const scope = challengeScope(response.headers.get("www-authenticate"));
      if (scope) {
        store.update(i.serverUrl, (rec) => ({ ...rec, wanted_scope: scope }));
        // The SDK may refresh and try again; if that fails too, this is why.
        if (i.settings.grant !== "client_credentials") wiring.needed = new AuthRequired(scope);
      }
    }
    return response;
  };
  wiring.provider = provider;
  wiring.fetch = fetch;
  return wiring as AuthWiring;
}

/** `scope` of an insufficient_scope Bearer challenge, else undefined. */
export function challengeScope(header: string | null): string | undefined {
  if (!header || !/error\s*=\s*"?insufficient_scope/i.test(header)) return undefined;
  return /(?:^|[\s,])scope\s*=\s*"([^"]*)"/i.exec(header)?.[1];
}
