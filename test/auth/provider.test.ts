// The SDK's OAuthClientProvider over the store: stored mode never reaches for a person (it stops
// with AuthRequired before any request when nothing is stored), authorize mode hands out the URL
// with a wanted scope added, a registration for another loopback port is made again, and client
// credentials need no redirect at all.
import { describe, expect, test } from "bun:test";
import { AuthRequired, StoreProvider, union, type ProviderOptions } from "../../src/auth/provider.ts";
import { AuthStore } from "../../src/auth/store.ts";

const URL_S = "https://mcp.example.com/mcp";
const provider = (o: Partial<ProviderOptions> = {}) =>
  new StoreProvider({
    store: new AuthStore(null),
    serverUrl: URL_S,
    settings: {},
    clientName: "toolgate test",
    now: () => 42,
    ...o,
  });

describe("StoreProvider", () => {
  test("stored mode with nothing stored stops before discovery, and says so", () => {
    const told: AuthRequired[] = [];
    const p = provider({ needed: (e) => told.push(e) });
    expect(() => p.discoveryState()).toThrow(AuthRequired);
    expect(told).toHaveLength(1);
  });

  test("stored mode never opens a URL: the scope the server asked for is carried in AuthRequired", () => {
    const p = provider();
    p.saveTokens({ access_token: "at-0123456789", token_type: "Bearer" });
    expect(p.discoveryState()).toBeUndefined();
    let thrown: unknown;
    try {
      p.redirectToAuthorization(new URL("https://auth.example.com/authorize?scope=a+b"));
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(AuthRequired);
    expect((thrown as AuthRequired).scope).toBe("a b");
  });

  test("authorize mode opens the URL with the wanted scope added to the server's", () => {
    const store = new AuthStore(null);
    store.update(URL_S, (r) => ({
      ...r,
      wanted_scope: "files:write files:read",
      tokens: { access_token: "at-older-0123456", token_type: "Bearer" },
    }));
    const opened: string[] = [];
    const p = provider({
      store,
      authorize: { redirectUrl: "http://127.0.0.1:5555/callback", state: "st", open: (u) => opened.push(u.href) },
    });
    // A fresh authorization reads no older token (the stored one stays until a new one is saved).
    expect(p.tokens()).toBeUndefined();
    expect(p.wantedScope).toBe("files:write files:read");
    p.redirectToAuthorization(new URL("https://auth.example.com/authorize?scope=files%3Aread"));
    expect(new URL(opened[0]!).searchParams.get("scope")).toBe("files:read files:write");
    expect(p.redirects).toHaveLength(1);
    // Tokens saved: the wanted scope is satisfied and forgotten.
    p.saveTokens({ access_token: "at-0123456789", token_type: "Bearer" });
    expect(store.read(URL_S)).toEqual({
      server_url: URL_S,
      tokens: { access_token: "at-0123456789", token_type: "Bearer" },
      obtained_ms: 42,
    });
  });

  test("a registration made for another loopback port is registered again; a configured client is always used", () => {
    const store = new AuthStore(null);
    store.update(URL_S, (r) => ({
      ...r,
      client: { client_id: "old", redirect_uris: ["http://127.0.0.1:1111/callback"] },
    }));
    const authorize = { redirectUrl: "http://127.0.0.1:2222/callback", state: "s", open: () => {} };
    expect(provider({ store, authorize }).clientInformation()).toBeUndefined();
    expect(provider({ store }).clientInformation()).toEqual({
      client_id: "old",
      redirect_uris: ["http://127.0.0.1:1111/callback"],
    });
    expect(
      provider({
        store,
        authorize,
        settings: { client_id: "pre", client_secret: "sec-0123456789" },
      }).clientInformation(),
    ).toEqual({ client_id: "pre", client_secret: "sec-0123456789" });
  });

  test("client credentials: no redirect, a client_credentials token request with the configured scope", () => {
    const p = provider({
      settings: { grant: "client_credentials", client_id: "ci", client_secret: "sec-0123456789", scope: "deploy" },
    });
    expect(p.redirectUrl).toBeUndefined();
    expect(p.clientMetadata.grant_types).toEqual(["client_credentials"]);
    expect(p.discoveryState()).toBeUndefined();
    expect(p.prepareTokenRequest()?.toString()).toBe("grant_type=client_credentials&scope=deploy");
  });

  test("client credentials without a configured scope ask for the resource's listed scopes, and add a scope a call was refused for", () => {
    const store = new AuthStore(null);
    const p = provider({
      store,
      settings: { grant: "client_credentials", client_id: "ci", client_secret: "sec-0123456789" },
    });
    expect(p.prepareTokenRequest()?.toString()).toBe("grant_type=client_credentials");
    p.saveDiscoveryState({
      authorizationServerUrl: "https://auth.example.com",
      resourceMetadata: { resource: URL_S, scopes_supported: ["mcp:tools", "mcp:read"] },
    });
    expect(p.prepareTokenRequest()?.get("scope")).toBe("mcp:tools mcp:read");
    store.update(URL_S, (r) => ({ ...r, wanted_scope: "mcp:admin" }));
    expect(p.prepareTokenRequest()?.get("scope")).toBe("mcp:tools mcp:read mcp:admin");
    // A configured scope is what the machine asks for (the refused call's scope still added).
    const configured = provider({
      store,
      settings: { grant: "client_credentials", client_id: "ci", client_secret: "sec-0123456789", scope: "deploy" },
    });
    expect(configured.prepareTokenRequest()?.get("scope")).toBe("deploy mcp:admin");
  });

  test("logout forgets everything stored for the server", () => {
    const p = provider();
    p.saveTokens({ access_token: "at-0123456789", token_type: "Bearer" });
    expect(p.forget()).toBe(true);
    expect(p.tokens()).toBeUndefined();
  });
});

test("union keeps each scope once, in order", () => {
  expect(union("a b", "b c")).toBe("a b c");
  expect(union("", "x")).toBe("x");
});
