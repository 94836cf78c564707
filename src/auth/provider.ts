// The SDK's OAuthClientProvider over the auth store, for one server URL. "authorize" (`toolgate
// auth`): a loopback redirect, the authorization URL handed to `open`. "stored" (call, tools,
// serve): stored tokens only, refreshed by the SDK; where a person would be needed it stops with
// AuthRequired instead. Client credentials (CI) need no person in either mode.
import type {
  AddClientAuthentication,
  OAuthClientProvider,
  OAuthDiscoveryState,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { AuthRecord, AuthStore } from "./store.ts";

/** The server entry's `oauth` block, variables already filled in (only a trusted config has one). */
export interface OAuthSettings {
  readonly client_id?: string;
  readonly client_secret?: string;
  /** An https URL of this client's metadata document (CIMD): the client_id where the server supports it. */
  readonly client_metadata_url?: string;
  readonly scope?: string;
  /** A PKCS#8 PEM: the client authenticates with a signed JWT (private_key_jwt) instead of a secret. */
  readonly private_key?: string;
  /** The JWT's algorithm (default ES256). */
  readonly signing_algorithm?: string;
  /** "client_credentials": machine-to-machine (CI), needs client_id and client_secret (or private_key). */
  readonly grant?: "authorization_code" | "client_credentials";
}

/** The server needs someone to authorize toolgate (`toolgate auth SERVER`); `scope` when a wider one was asked for. */
export class AuthRequired extends Error {
  constructor(readonly scope?: string) {
    super(scope ? `the server asks for the scope "${scope}"` : "the server needs authorization");
  }
}

export interface ProviderOptions {
  readonly store: AuthStore;
  readonly serverUrl: string;
  readonly settings: OAuthSettings;
  readonly clientName: string;
  /** authorize: the loopback redirect URL and what to do with the authorization URL. */
  readonly authorize?: { readonly redirectUrl: string; readonly state: string; open(url: URL): void };
  readonly now: () => number;
  /** Told before AuthRequired is thrown (the SDK may wrap what it throws). */
  readonly needed?: (e: AuthRequired) => void;
}

export class StoreProvider implements OAuthClientProvider {
  #verifier = "";
  /** Tokens were saved by this provider (authorize mode reads no older ones). */
  #saved = false;
  /** Authorization URLs handed out by this provider (authorize mode). */
  readonly redirects: URL[] = [];

  /** private_key_jwt: a signed assertion instead of a secret (the signing code loads only when used). */
  readonly addClientAuthentication?: AddClientAuthentication;

  constructor(private readonly o: ProviderOptions) {
    const { private_key: key, client_id: id, signing_algorithm: alg } = o.settings;
    if (key !== undefined && id !== undefined) {
      this.addClientAuthentication = async (headers, params, url, metadata) => {
        const { createPrivateKeyJwtAuth } = await import("@modelcontextprotocol/sdk/client/auth-extensions.js");
        await createPrivateKeyJwtAuth({ issuer: id, subject: id, privateKey: key, alg: alg ?? "ES256" })(
          headers,
          params,
          url,
          metadata,
        );
      };
    }
  }

  #required(scope: string | undefined): AuthRequired {
    const e = new AuthRequired(scope);
    this.o.needed?.(e);
    return e;
  }

  get #machine(): boolean {
    return this.o.settings.grant === "client_credentials";
  }

  get #record(): AuthRecord {
    return this.o.store.read(this.o.serverUrl) ?? { server_url: this.o.serverUrl };
  }

  get redirectUrl(): string | undefined {
    if (this.#machine) return undefined;
    // Stored mode still names a redirect: the SDK only refreshes for a client that has one.
    return this.o.authorize?.redirectUrl ?? "http://127.0.0.1/callback";
  }

  get clientMetadataUrl(): string | undefined {
    return this.o.settings.client_metadata_url;
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.o.settings.client_secret !== undefined;
    const jwt = this.o.settings.private_key !== undefined;
    return {
      client_name: this.o.clientName,
      redirect_uris: this.#machine ? [] : [this.redirectUrl!],
      grant_types: this.#machine ? ["client_credentials"] : ["authorization_code", "refresh_token"],
      response_types: this.#machine ? [] : ["code"],
      token_endpoint_auth_method: jwt ? "private_key_jwt" : secret ? "client_secret_basic" : "none",
      ...(this.o.settings.scope ? { scope: this.o.settings.scope } : {}),
    };
  }

  state(): string {
    return this.o.authorize?.state ?? "";
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    const s = this.o.settings;
    if (s.client_id !== undefined) {
      // Bound to the authorization server that first accepted them (the SDK sends them to no other).
      const bound = this.#record.configured_client;
      const issuer = bound?.client_id === s.client_id ? { issuer: bound.issuer } : {};
      return {
        client_id: s.client_id,
        ...(s.client_secret !== undefined ? { client_secret: s.client_secret } : {}),
        ...issuer,
      };
    }
    const client = this.#record.client as OAuthClientInformationMixed | undefined;
    // A registration made for another loopback port is registered again (the redirect must match).
    const uris = (client as { redirect_uris?: string[] } | undefined)?.redirect_uris;
    if (client && this.o.authorize && Array.isArray(uris) && !uris.includes(this.o.authorize.redirectUrl))
      return undefined;
    return client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    // Configured credentials stay in the config; only a registration the server made is kept, and
    // for configured ones the authorization server they were first accepted by.
    const id = this.o.settings.client_id;
    if (id !== undefined) {
      const issuer = (info as { issuer?: unknown }).issuer;
      if (info.client_id === id && typeof issuer === "string" && this.#record.configured_client?.client_id !== id)
        this.o.store.update(this.o.serverUrl, (r) => ({ ...r, configured_client: { client_id: id, issuer } }));
      return;
    }
    this.o.store.update(this.o.serverUrl, (r) => ({ ...r, client: info as AuthRecord["client"] }));
  }

  tokens(): OAuthTokens | undefined {
    // `toolgate auth` starts afresh (maybe for a wider scope), yet keeps the old token until a new one is saved.
    if (this.o.authorize && !this.#saved) return undefined;
    return this.#record.tokens as OAuthTokens | undefined;
  }

  /** Whether this provider saved tokens (the authorization server issued them during this run). */
  get issuedNow(): boolean {
    return this.#saved;
  }

  /** The scope a refused call asked for, which the next authorization adds. */
  get wantedScope(): string | undefined {
    return this.#record.wanted_scope;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#saved = true;
    this.o.store.update(this.o.serverUrl, (r) => {
      const { wanted_scope: _, ...rest } = r;
      return { ...rest, tokens: tokens as AuthRecord["tokens"], obtained_ms: this.o.now() };
    });
  }

  redirectToAuthorization(url: URL): void {
    const wanted = this.#record.wanted_scope;
    if (!this.o.authorize) throw this.#required(url.searchParams.get("scope") ?? undefined);
    // A scope a call was refused for (step-up) is asked for with what the server names now.
    if (wanted) url.searchParams.set("scope", union(url.searchParams.get("scope") ?? "", wanted));
    // Opened first: an `open` that refuses (too many attempts) leaves no redirect behind.
    this.o.authorize.open(url);
    this.redirects.push(url);
  }

  saveCodeVerifier(v: string): void {
    this.#verifier = v;
  }

  codeVerifier(): string {
    return this.#verifier;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    const rec = this.#record;
    // Nothing stored, and someone would have to authorize: stop before any request is made.
    if (!this.o.authorize && !this.#machine && !rec.tokens) throw this.#required(rec.wanted_scope);
    return rec.discovery as OAuthDiscoveryState | undefined;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.o.store.update(this.o.serverUrl, (r) => ({ ...r, discovery: state as unknown as Record<string, unknown> }));
  }

  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): void {
    if (scope === "verifier") return void (this.#verifier = "");
    this.o.store.update(this.o.serverUrl, (r) => {
      const { tokens, obtained_ms, client, discovery, ...rest } = r;
      return {
        ...rest,
        ...(scope === "all" || scope === "tokens" ? {} : { tokens, obtained_ms }),
        ...(scope === "all" || scope === "client" ? {} : { client }),
        ...(scope === "all" || scope === "discovery" ? {} : { discovery }),
      } as AuthRecord;
    });
  }

  /** Removes everything stored for the server (`--logout`); whether there was anything. */
  forget(): boolean {
    return this.o.store.remove(this.o.serverUrl);
  }

  /**
   * A machine's token request. The scope: the configured one, else what the server's resource
   * metadata lists (scopes_supported), with any scope a refused call asked for added: nobody runs
   * `toolgate auth` for a machine, so its next token asks for what the server named.
   */
  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (!this.#machine) return undefined;
    const rec = this.#record;
    const listed = (rec.discovery as { resourceMetadata?: { scopes_supported?: unknown } } | undefined)
      ?.resourceMetadata?.scopes_supported;
    const advertised = Array.isArray(listed) ? listed.filter((x) => typeof x === "string").join(" ") : "";
    const p = new URLSearchParams({ grant_type: "client_credentials" });
    const s = union(scope ?? this.o.settings.scope ?? advertised, rec.wanted_scope ?? "");
    if (s) p.set("scope", s);
    return p;
  }
}

/** Two space-separated scope lists as one, each scope once, in order. */
export function union(a: string, b: string): string {
  return [...new Set([...a.split(" "), ...b.split(" ")].filter((s) => s !== ""))].join(" ");
}
