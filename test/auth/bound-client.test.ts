// The config's own client credentials, through the MCP SDK's real auth() against two real OpenID
// providers (test/fixtures/oidc/issuer.ts): bound to the authorization server that first accepts
// them, they are never presented to another one a server names later, even once the discovery
// is forgotten (as the SDK does when an authorization server refuses the client).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { auth } from "@modelcontextprotocol/sdk/client/auth.js";
import { StoreProvider } from "../../src/auth/provider.ts";
import { AuthStore } from "../../src/auth/store.ts";
import { MACHINE, MACHINE_SECRET, startIssuer, type Issuer } from "../fixtures/oidc/issuer.ts";

let first: Issuer;
let second: Issuer;
beforeAll(async () => {
  [first, second] = [await startIssuer(), await startIssuer()];
});
afterAll(async () => {
  await first?.stop();
  await second?.stop();
});

/** A protected resource's metadata only, naming whichever authorization server `names` holds. */
function resourceNaming(names: { issuer: string }) {
  let port = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (req: Request): Response =>
      new URL(req.url).pathname.startsWith("/.well-known/oauth-protected-resource")
        ? Response.json({
            resource: `http://127.0.0.1:${port}/mcp`,
            authorization_servers: [names.issuer],
            scopes_supported: ["mcp:tools"],
          })
        : new Response("not found", { status: 404 }),
  });
  port = server.port!;
  return { url: `http://127.0.0.1:${port}/mcp`, [Symbol.dispose]: () => void server.stop(true) };
}

const machine = (store: AuthStore, serverUrl: string, client_id = MACHINE) =>
  new StoreProvider({
    store,
    serverUrl,
    settings: { grant: "client_credentials", client_id, client_secret: MACHINE_SECRET },
    clientName: "toolgate test",
    now: Date.now,
  });

test("configured credentials are bound to the first authorization server that accepts them; another is refused before a request", async () => {
  const names = { issuer: first.issuer };
  using resource = resourceNaming(names);
  const store = new AuthStore(null);
  const p = machine(store, resource.url);
  expect(p.clientInformation()).toEqual({ client_id: MACHINE, client_secret: MACHINE_SECRET });
  expect(await auth(p, { serverUrl: resource.url })).toBe("AUTHORIZED");
  expect(store.read(resource.url)?.configured_client).toEqual({ client_id: MACHINE, issuer: first.issuer });
  expect(p.clientInformation()).toEqual({ client_id: MACHINE, client_secret: MACHINE_SECRET, issuer: first.issuer });
  // Discovery forgotten, the server now names another authorization server.
  p.invalidateCredentials("all");
  names.issuer = second.issuer;
  const before = second.tokenRequests();
  await expect(auth(p, { serverUrl: resource.url })).rejects.toThrow(`bound to authorization server ${first.issuer}`);
  expect(second.tokenRequests()).toBe(before);
  // Another configured client (the config changed) is not bound by the first one's record.
  expect(machine(store, resource.url, "another-bot").clientInformation()).toEqual({
    client_id: "another-bot",
    client_secret: MACHINE_SECRET,
  });
  // --logout forgets the binding with the rest.
  expect(p.forget()).toBe(true);
  expect(await auth(p, { serverUrl: resource.url })).toBe("AUTHORIZED");
  expect(second.tokenRequests()).toBe(before + 1);
});
