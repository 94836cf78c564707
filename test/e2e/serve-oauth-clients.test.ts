// End to end: the clients of a gateway that is an OAuth protected resource. dist/toolgate serve
// --http --oauth-issuer against a real OpenID provider (test/fixtures/oidc/issuer.ts), and on the
// other side: a second toolgate naming the gateway as its HTTP MCP server (`toolgate auth` with a
// person answering the provider's sign-in and consent forms, test/support/oidc.ts, then `toolgate
// call`), the MCP SDK's Client with its own OAuth provider (registered by itself, auth code + PKCE),
// and machines with client credentials (toolgate's own client, and a bearer token). The gateway's
// journal names each caller.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, tempDir, type TempDir } from "../helpers.ts";
import { CLI, MACHINE, MACHINE_SECRET, startIssuer, type Issuer } from "../fixtures/oidc/issuer.ts";
import { signIn } from "../support/oidc.ts";
import { serveHttp, type HttpServe } from "../serve/http-client.ts";
import { receiver } from "../telemetry/receiver.ts";
import { journal, site, textJson } from "../serve/client.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";

let issuer: Issuer;
beforeAll(async () => {
  issuer = await startIssuer();
});
afterAll(async () => {
  await issuer?.stop();
});

/** The gateway: a workspace holding a.txt, its trusted --config asking for tokens of the issuer. */
async function gateway(
  root: TempDir,
  o: { env?: Record<string, string>; issuer?: Issuer; at?: string; dir?: string; callers?: unknown[] } = {},
): Promise<HttpServe & { ws: string; home: string }> {
  const dir = mkdirOnce(join(root.path, o.dir ?? "gw"));
  const s = site(dir);
  const config = join(dir, "toolgate.json");
  writeFileSync(
    config,
    JSON.stringify({
      workspace: s.ws,
      serve: {
        oauth: { issuer: (o.issuer ?? issuer).issuer, scopes: ["mcp:tools"] },
        ...(o.callers ? { callers: o.callers } : {}),
      },
    }),
  );
  const g = await serveHttp(
    ["--http", o.at ?? "127.0.0.1:0", "--config", config, "--allow-read", "--approve", "file_read"],
    { cwd: s.ws, home: s.home, env: o.env ?? {} },
  );
  return Object.assign(g, s);
}

function mkdirOnce(dir: string): string {
  mkdirSync(dir);
  return dir;
}

/** A second toolgate (its own workspace, HOME and state) whose trusted config names the gateway "gw". */
function clientOf(root: TempDir, g: HttpServe, oauth?: Record<string, string>, also: readonly Issuer[] = []) {
  const dir = mkdirOnce(join(root.path, "client"));
  const ws = mkdirOnce(join(dir, "ws"));
  const config = join(dir, "toolgate.json");
  writeFileSync(
    config,
    JSON.stringify({ workspace: ws, mcpServers: { gw: { type: "http", url: g.url, ...(oauth ? { oauth } : {}) } } }),
  );
  const env = { HOME: dir, XDG_STATE_HOME: join(dir, "state") };
  const flags = [
    "--config",
    config,
    `--allow-net=${[new URL(g.url).port, issuer.port, ...also.map((i) => i.port)].map((p) => `127.0.0.1:${p}`).join(",")}`,
  ];
  return { ws, env, flags, toolgate: (args: string[]) => run([...args, ...flags], { cwd: ws, env }) };
}

/** `toolgate auth SERVER` as a process: resolves with the authorization URL it prints alone on a stderr line. */
function authProcess(args: string[], cwd: string, env: Record<string, string>) {
  const proc = Bun.spawn([BIN, "auth", ...args], {
    cwd,
    env: { PATH: "/usr/bin:/bin", CI: "true", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let err = "";
  const reader = proc.stderr.getReader();
  const decoder = new TextDecoder();
  const printed = (async () => {
    for (;;) {
      const line = err.split("\n").find((l) => l.startsWith(`${issuer.issuer}/auth?`));
      if (line !== undefined) return line;
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`toolgate auth printed no authorization URL: ${err}`);
      err += decoder.decode(chunk.value, { stream: true });
    }
  })();
  const finished = (async () => {
    await printed.catch(() => {});
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      err += decoder.decode(chunk.value, { stream: true });
    }
    const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    return { code, stdout, stderr: err };
  })();
  return { printed, finished, kill: () => proc.kill() };
}

describe("toolgate's own client", () => {
  test.each([
    ["a client the provider lists (a native app)", { client_id: CLI }],
    ["a client toolgate registers itself (RFC 7591)", undefined],
  ])(
    "toolgate auth with %s signs a person in (login and consent forms, PKCE), then toolgate call reaches the gateway as them",
    async (_, oauth) => {
      await using root = tempDir();
      await using traces = receiver();
      await using g = await gateway(root, {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: traces.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" },
      });
      const c = clientOf(root, g, oauth);
      const auth = authProcess(["gw", ...c.flags], c.ws, c.env);
      let client = "";
      try {
        const url = new URL(await auth.printed);
        const q = url.searchParams;
        client = q.get("client_id")!;
        expect({ method: q.get("code_challenge_method"), resource: q.get("resource"), scope: q.get("scope") }).toEqual({
          method: "S256",
          resource: g.url,
          scope: "mcp:tools",
        });
        if (oauth) expect(client).toBe(CLI);
        else expect(client).not.toBe(CLI);
        const redirect = q.get("redirect_uri")!;
        expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
        const signed = await signIn(url.href, "alice", { redirectPrefix: redirect, deliver: true });
        expect(signed.forms).toEqual(["login", "consent"]);
        expect(signed.consentText).toBe(`${client} asks for ${g.url}: mcp:tools`);
        expect(signed.delivered).toEqual({ status: 200, text: expect.stringContaining("toolgate is authorized") });
        const done = await auth.finished;
        expect([done.code, done.stdout && JSON.parse(done.stdout)]).toEqual([
          0,
          { server: "gw", authorized: true, authorizations: 1, tools: expect.any(Number) },
        ]);
      } finally {
        auth.kill();
      }
      const call = await c.toolgate(["call", "gw__file_read", JSON.stringify({ path: "a.txt" }), "--approve", "all"]);
      expect([call.code, json(call).status, JSON.stringify(json(call).payload)]).toEqual([
        0,
        "success",
        expect.stringContaining("alpha"),
      ]);
      await g.said(`a new caller: alice via ${client}`);
      expect(await g.stop()).toBe(0);
      const rows = await journal(g.ws, g.home);
      expect(rows.map((r) => [r.tool, r.status, r.caller_sub, r.caller_client])).toEqual([
        ["file_read", "success", "alice", client],
      ]);
      // The call's span names the caller too.
      const [span] = await traces.waitFor(1);
      expect([span!.name, span!.attributes["enduser.id"], span!.attributes["toolgate.caller.client_id"]]).toEqual([
        "execute_tool file_read",
        "alice",
        client,
      ]);
    },
  );

  test("a token the gateway refuses (expired, revoked) is refreshed with the refresh token, without a person", async () => {
    await using root = tempDir();
    await using g = await gateway(root);
    const c = clientOf(root, g, { client_id: CLI });
    const auth = authProcess(["gw", ...c.flags], c.ws, c.env);
    try {
      const url = new URL(await auth.printed);
      await signIn(url.href, "bob", { redirectPrefix: url.searchParams.get("redirect_uri")!, deliver: true });
      expect((await auth.finished).code).toBe(0);
    } finally {
      auth.kill();
    }
    // The stored access token stops holding (as one that expired): the gateway answers 401 invalid_token.
    const dir = join(c.env.XDG_STATE_HOME, "toolgate", "auth");
    const [file] = readdirSync(dir);
    const record = JSON.parse(readFileSync(join(dir, file!), "utf8"));
    expect(record.tokens.refresh_token).toEqual(expect.any(String));
    writeFileSync(
      join(dir, file!),
      JSON.stringify({ ...record, tokens: { ...record.tokens, access_token: "no-longer-valid-0123456789" } }),
    );
    const before = issuer.tokenRequests();
    const call = await c.toolgate(["call", "gw__file_read", JSON.stringify({ path: "a.txt" }), "--approve", "all"]);
    expect([call.code, json(call).status]).toEqual([0, "success"]);
    expect(issuer.tokenRequests()).toBe(before + 1);
    const refreshed = JSON.parse(readFileSync(join(dir, file!), "utf8"));
    expect(refreshed.tokens.access_token.split(".")).toHaveLength(3);
    expect(await g.stop()).toBe(0);
    expect((await journal(g.ws, g.home)).map((r) => [r.status, r.caller_sub, r.caller_client])).toEqual([
      ["success", "bob", CLI],
    ]);
  });

  test("a person no caller rule admits: signed in at the provider, then toolgate auth and call say the gateway refuses them and why", async () => {
    await using root = tempDir();
    await using g = await gateway(root, { callers: [{ name: "readers", match: { groups: "readers" } }] });
    const c = clientOf(root, g, { client_id: CLI });
    const auth = authProcess(["gw", ...c.flags], c.ws, c.env);
    try {
      const url = new URL(await auth.printed);
      await signIn(url.href, "carol", { redirectPrefix: url.searchParams.get("redirect_uri")!, deliver: true });
      const done = await auth.finished;
      expect([done.code, done.stderr]).toEqual([1, expect.stringContaining(`cannot authorize MCP server "gw"`)]);
      expect(done.stderr).toContain(`no caller rule of this server admits carol via ${CLI}`);
    } finally {
      auth.kill();
    }
    const call = await c.toolgate(["call", "gw__file_read", JSON.stringify({ path: "a.txt" }), "--approve", "all"]);
    expect([call.code, json(call).error_code, json(call).message]).toEqual([
      1,
      "mcp.connect_failed",
      expect.stringContaining(`no caller rule of this server admits carol via ${CLI}`),
    ]);
    await g.said(`a caller no rule admits was refused: carol via ${CLI}`);
  });

  test("a machine: client credentials from toolgate's config, the token for the gateway's resource", async () => {
    await using root = tempDir();
    await using g = await gateway(root);
    const c = clientOf(root, g, { grant: "client_credentials", client_id: MACHINE, client_secret: MACHINE_SECRET });
    const call = await c.toolgate(["call", "gw__file_read", JSON.stringify({ path: "a.txt" }), "--approve", "all"]);
    expect([call.code, json(call).status, JSON.stringify(json(call).payload)]).toEqual([
      0,
      "success",
      expect.stringContaining("alpha"),
    ]);
    expect(await g.stop()).toBe(0);
    const rows = await journal(g.ws, g.home);
    expect(rows.map((r) => [r.tool, r.status, r.caller_sub, r.caller_client])).toEqual([
      ["file_read", "success", MACHINE, MACHINE],
    ]);
  });

  test("a gateway that moved to another identity provider: the stored one is kept (the secret goes nowhere else), the refusal names auth --logout", async () => {
    await using root = tempDir();
    const other = await startIssuer();
    try {
      let at = "";
      let c!: ReturnType<typeof clientOf>;
      {
        await using g = await gateway(root);
        c = clientOf(root, g, { grant: "client_credentials", client_id: MACHINE, client_secret: MACHINE_SECRET }, [
          other,
        ]);
        const call = await c.toolgate(["call", "gw__file_read", JSON.stringify({ path: "a.txt" }), "--approve", "all"]);
        expect([call.code, json(call).status]).toEqual([0, "success"]);
        at = new URL(g.url).host;
      }
      // The same address, now trusting another authorization server.
      await using g = await gateway(root, { issuer: other, at, dir: "gw2" });
      expect(new URL(g.url).host).toBe(at);
      const before = other.tokenRequests();
      const refused = await c.toolgate([
        "call",
        "gw__file_read",
        JSON.stringify({ path: "a.txt" }),
        "--approve",
        "all",
      ]);
      expect([refused.code, json(refused).error_code, json(refused).details]).toEqual([
        4,
        "mcp.auth_required",
        { server: "gw", command: "toolgate auth gw --logout" },
      ]);
      // Both providers' keys are named key-1: the new gateway finds the kid and the signature fails.
      expect(json(refused).message).toStartWith(
        `MCP server "gw" refused the token its authorization server just issued (the token's signature does not verify): it may trust another authorization server now`,
      );
      expect(other.tokenRequests()).toBe(before);
      // Forgetting what was stored: the next call discovers the new one.
      expect((await c.toolgate(["auth", "gw", "--logout"])).code).toBe(0);
      const call = await c.toolgate(["call", "gw__file_read", JSON.stringify({ path: "a.txt" }), "--approve", "all"]);
      expect([call.code, json(call).status]).toEqual([0, "success"]);
      expect(other.tokenRequests()).toBeGreaterThan(before);
      expect(await g.stop()).toBe(0);
      expect((await journal(g.ws, g.home)).map((r) => [r.status, r.caller_sub])).toEqual([["success", MACHINE]]);
    } finally {
      await other.stop();
    }
  });

  test("a machine whose configured scope falls short: the gateway's 403 names the scope, the next token asks for it too", async () => {
    await using root = tempDir();
    await using g = await gateway(root);
    const c = clientOf(root, g, {
      grant: "client_credentials",
      client_id: MACHINE,
      client_secret: MACHINE_SECRET,
      scope: "mcp:admin",
    });
    const call = await c.toolgate(["call", "gw__file_read", JSON.stringify({ path: "a.txt" }), "--approve", "all"]);
    expect([call.code, json(call).status]).toEqual([0, "success"]);
    expect(await g.stop()).toBe(0);
    expect((await journal(g.ws, g.home)).map((r) => r.caller_sub)).toEqual([MACHINE]);
  });
});

/** An application's OAuthClientProvider, in memory: it registers itself and hands the authorization URL to a person. */
class AppProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  opened: URL[] = [];
  readonly redirectUrl = "http://127.0.0.1:9/callback";
  readonly clientMetadata = {
    client_name: "an MCP app",
    redirect_uris: [this.redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  clientInformation = () => this.client;
  saveClientInformation = (c: OAuthClientInformationMixed) => void (this.client = c);
  tokens = () => this.saved;
  saveTokens = (t: OAuthTokens) => void (this.saved = t);
  redirectToAuthorization = (u: URL) => void this.opened.push(u);
  saveCodeVerifier = (v: string) => void (this.verifier = v);
  codeVerifier = () => this.verifier;
}

describe("the MCP SDK's Client", () => {
  test("with its OAuth provider: registers itself, a person signs in (PKCE), then it lists and calls", async () => {
    await using root = tempDir();
    await using g = await gateway(root);
    const app = new AppProvider();
    const first = new StreamableHTTPClientTransport(new URL(g.url), { authProvider: app });
    const refused = await new Client({ name: "app", version: "1" }).connect(first).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(UnauthorizedError);
    expect(app.client?.client_id).toEqual(expect.any(String));
    const [url] = app.opened;
    expect({
      n: app.opened.length,
      resource: url?.searchParams.get("resource"),
      scope: url?.searchParams.get("scope"),
      method: url?.searchParams.get("code_challenge_method"),
    }).toEqual({ n: 1, resource: g.url, scope: "mcp:tools", method: "S256" });
    const signed = await signIn(url!.href, "bob", { redirectPrefix: app.redirectUrl });
    expect(signed.forms).toEqual(["login", "consent"]);
    await first.finishAuth(signed.redirect.searchParams.get("code")!);
    expect(app.saved?.access_token.split(".")).toHaveLength(3);
    const client = new Client({ name: "app", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(g.url), { authProvider: app }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("file_read");
      expect(textJson(await client.callTool({ name: "file_read", arguments: { path: "a.txt" } }))).toMatchObject({
        content: expect.stringContaining("alpha"),
      });
    } finally {
      await client.close();
    }
    expect(await g.stop()).toBe(0);
    expect((await journal(g.ws, g.home)).map((r) => [r.tool, r.status, r.caller_sub, r.caller_client])).toEqual([
      ["file_read", "success", "bob", app.client!.client_id],
    ]);
  });

  test("with the SDK's ClientCredentialsProvider: a machine calls", async () => {
    await using root = tempDir();
    await using g = await gateway(root);
    const client = new Client({ name: "ci", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(g.url), {
        authProvider: new ClientCredentialsProvider({
          clientId: MACHINE,
          clientSecret: MACHINE_SECRET,
          scope: "mcp:tools",
          expectedIssuer: issuer.issuer,
        }),
      }),
    );
    try {
      expect(textJson(await client.callTool({ name: "file_read", arguments: { path: "a.txt" } }))).toMatchObject({
        content: expect.stringContaining("alpha"),
      });
    } finally {
      await client.close();
    }
    expect(await g.stop()).toBe(0);
    expect((await journal(g.ws, g.home)).map((r) => [r.status, r.caller_sub, r.caller_client])).toEqual([
      ["success", MACHINE, MACHINE],
    ]);
  });
});
