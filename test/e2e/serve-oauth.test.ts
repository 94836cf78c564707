// End to end: dist/toolgate serve --http --oauth-issuer against a real OpenID provider
// (oidc-provider, test/fixtures/oidc/issuer.ts) on loopback, issuing JWT access tokens for the
// served resource. The protected resource's metadata and challenges, every way a token is refused,
// the SDK's Client and a machine's client-credentials token, key rotation and a flood of unknown
// kids (at most one key set fetch), and the provider stopped while cached keys go on.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { exportSPKI, generateKeyPair, importJWK, SignJWT, UnsecuredJWT, type JWTPayload } from "jose";
import { run, tempDir, type TempDir } from "../helpers.ts";
import { startIssuer, type Issuer } from "../fixtures/oidc/issuer.ts";
import { sessionsServer } from "../fixtures/mcp/http-sessions.ts";
import { connect, initializeBody, POST_HEADERS, serveHttp, type HttpServe } from "../serve/http-client.ts";
import { journal, site, textJson } from "../serve/client.ts";

let issuer: Issuer;
beforeAll(async () => {
  issuer = await startIssuer();
});
afterAll(async () => {
  await issuer?.stop();
});

/** A workspace, a home and a trusted --config holding `serve` (and profiles), beside the workspace. */
function place(root: string, config: Record<string, unknown> = {}) {
  const s = site(root);
  const file = join(root, "cfg", "toolgate.json");
  mkdirSync(join(root, "cfg"));
  writeFileSync(file, JSON.stringify({ workspace: s.ws, ...config }));
  return { ...s, config: file };
}

const initialize = (url: string, token?: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { ...POST_HEADERS, ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
    body: initializeBody,
  });

const metaOf = (url: string) => url.replace(/\/mcp$/, "/.well-known/oauth-protected-resource/mcp");

/** A token signed with the provider's own key, with the claims a test needs wrong. */
async function forged(url: string, claims: JWTPayload = {}, header: Record<string, unknown> = {}): Promise<string> {
  const k = issuer.signingKey();
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: issuer.issuer,
    aud: url,
    sub: "alice",
    client_id: "team-app",
    scope: "mcp:tools",
    iat: now,
    exp: now + 300,
    ...claims,
  })
    .setProtectedHeader({ alg: "ES256", kid: k.kid, typ: "at+jwt", ...header })
    .sign(await importJWK(k.jwk, "ES256"));
}

/** The provider's public key as PEM: what an HMAC confusion attack keys its signature with. */
async function publicPem(): Promise<string> {
  const { d: _, ...pub } = issuer.signingKey().jwk;
  return exportSPKI((await importJWK(pub, "ES256")) as CryptoKey);
}

async function served(
  root: TempDir,
  args: readonly string[] = [],
  config?: Record<string, unknown>,
): Promise<HttpServe & { ws: string; home: string }> {
  const p = place(root.path, config);
  const s = await serveHttp(["--oauth-issuer", issuer.issuer, "--config", p.config, "--allow-read", ...args], {
    cwd: p.ws,
    home: p.home,
  });
  return Object.assign(s, { ws: p.ws, home: p.home });
}

describe("the protected resource", () => {
  test("publishes its metadata at both paths, and challenges a request without a token", async () => {
    await using root = tempDir();
    await using s = await served(root);
    const expected = {
      resource: s.url,
      authorization_servers: [issuer.issuer],
      bearer_methods_supported: ["header"],
      resource_name: "toolgate",
    };
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const r = await fetch(s.url.replace(/\/mcp$/, path));
      expect([r.status, await r.json()]).toEqual([200, expected]);
    }
    const r = await initialize(s.url);
    expect([r.status, r.headers.get("www-authenticate")]).toEqual([401, `Bearer resource_metadata="${metaOf(s.url)}"`]);
    expect(s.token).toBeNull();
    expect(s.stderr()).toContain(`OAuth: access tokens from ${issuer.issuer} for ${s.url}`);
  });

  test("refuses every token not issued for it, as invalid_token", async () => {
    await using root = tempDir();
    await using s = await served(root);
    const now = Math.floor(Date.now() / 1000);
    const stranger = await generateKeyPair("ES256");
    const alice = await issuer.userToken("alice", s.url);
    const idToken = issuer.lastIdToken();
    const cases: [string, string, string][] = [
      [
        "another resource's token",
        await issuer.userToken("alice", "http://127.0.0.1:1/other"),
        "the token is for another resource (aud)",
      ],
      ["an ID token (its audience is the client)", idToken, "the token is for another resource (aud)"],
      ["another issuer", await forged(s.url, { iss: "http://127.0.0.1:1" }), "the token was issued by another issuer"],
      ["expired", await forged(s.url, { iat: now - 900, exp: now - 600 }), "the token has expired"],
      [
        "alg none",
        new UnsecuredJWT({ iss: issuer.issuer, aud: s.url, sub: "alice", exp: now + 300 }).encode(),
        "the token's signing algorithm is not accepted",
      ],
      [
        "HS256 keyed with the public key",
        await new SignJWT({ iss: issuer.issuer, aud: s.url, sub: "alice", exp: now + 300 })
          .setProtectedHeader({ alg: "HS256", kid: issuer.signingKey().kid })
          .sign(new TextEncoder().encode(await publicPem())),
        "the token's signing algorithm is not accepted",
      ],
      [
        "an unknown kid",
        await new SignJWT({ iss: issuer.issuer, aud: s.url, sub: "alice", exp: now + 300 })
          .setProtectedHeader({ alg: "ES256", kid: "stranger" })
          .sign(stranger.privateKey),
        "the token is signed with a key the issuer does not list",
      ],
      [
        "the issuer's kid, another key",
        await new SignJWT({ iss: issuer.issuer, aud: s.url, sub: "alice", exp: now + 300 })
          .setProtectedHeader({ alg: "ES256", kid: issuer.signingKey().kid })
          .sign(stranger.privateKey),
        "the token's signature does not verify",
      ],
      ["not a JWT", "opaque-token-0123456789", "the token is not a signed JWT"],
    ];
    const seen = [];
    for (const [what, token] of cases) {
      const r = await initialize(s.url, token);
      seen.push([what, r.status, r.headers.get("www-authenticate")]);
    }
    expect(seen).toEqual(
      cases.map(([what, , description]) => [
        what,
        401,
        `Bearer resource_metadata="${metaOf(s.url)}", error="invalid_token", error_description="${description}"`,
      ]),
    );
    // The real one opens a session.
    const ok = await initialize(s.url, alice);
    expect([ok.status, ok.headers.get("mcp-session-id")]).toEqual([200, expect.stringMatching(/^[0-9a-f-]{36}$/)]);
  });

  test("a token without a required scope is 403 insufficient_scope naming it", async () => {
    await using root = tempDir();
    await using s = await served(root, [], { serve: { oauth: { issuer: issuer.issuer, scopes: ["mcp:tools"] } } });
    const r = await initialize(s.url, await issuer.userToken("alice", s.url, "mcp:admin"));
    expect([r.status, r.headers.get("www-authenticate")]).toEqual([
      403,
      `Bearer resource_metadata="${metaOf(s.url)}", error="insufficient_scope", error_description="the token lacks the scope mcp:tools", scope="mcp:tools"`,
    ]);
    const meta = (await (await fetch(metaOf(s.url))).json()) as { scopes_supported?: string[] };
    expect(meta.scopes_supported).toEqual(["mcp:tools"]);
    expect((await initialize(s.url, await issuer.userToken("alice", s.url, "mcp:tools mcp:admin"))).status).toBe(200);
  });

  test("the SDK's Client with a bearer token lists and calls; a machine's client-credentials token works", async () => {
    await using root = tempDir();
    await using s = await served(root, ["--approve", "file_read"]);
    for (const token of [await issuer.userToken("bob", s.url), await issuer.machineToken(s.url)]) {
      await using client = await connect(s.url, { token });
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("file_read");
      const r = await client.callTool({ name: "file_read", arguments: { path: "a.txt" } });
      expect(textJson(r)).toMatchObject({ content: expect.stringContaining("alpha") });
    }
    expect(s.stderr()).toContain("toolgate: serve: a new caller: bob via team-app\n");
    expect(s.stderr()).toContain("toolgate: serve: a new caller: ci-bot\n");
  });
});

describe("the serve line", () => {
  test.each([
    [["--token-file", "t"], "--oauth-issuer and --token-file were both given"],
    [["--no-token"], "--oauth-issuer and --no-token were both given"],
  ])("--oauth-issuer with %p is exit 2", async (flags, message) => {
    await using root = tempDir();
    const r = await run(["serve", "--http", "127.0.0.1:0", "--oauth-issuer", issuer.issuer, ...flags], {
      cwd: root.path,
    });
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining(message)]);
  });

  test("the config's serve.oauth with --token-file is exit 2", async () => {
    await using root = tempDir();
    const p = place(root.path, { serve: { oauth: { issuer: issuer.issuer } } });
    const file = join(root.path, "t");
    writeFileSync(file, "x".repeat(40), { mode: 0o600 });
    const r = await run(["serve", "--http", "127.0.0.1:0", "--config", p.config, "--token-file", file], {
      cwd: p.ws,
      env: { HOME: p.home },
    });
    expect([r.code, r.stderr]).toEqual([
      2,
      expect.stringContaining("--token-file was given, and the config's serve.oauth asks for OAuth access tokens"),
    ]);
  });

  test("a public address still needs --http-public", async () => {
    await using root = tempDir();
    const r = await run(["serve", "--http", "0.0.0.0:0", "--oauth-issuer", issuer.issuer], { cwd: root.path });
    expect([r.code, r.stderr]).toEqual([2, expect.stringContaining("is not a loopback address")]);
  });

  test("an issuer that does not answer stops the start (exit 5)", async () => {
    await using root = tempDir();
    const r = await run(["serve", "--http", "127.0.0.1:0", "--oauth-issuer", "http://127.0.0.1:1"], { cwd: root.path });
    expect([r.code, r.stderr]).toEqual([
      5,
      expect.stringContaining("no authorization server metadata for http://127.0.0.1:1"),
    ]);
  });

  test("an issuer that is not https off loopback is refused (exit 5)", async () => {
    await using root = tempDir();
    const r = await run(["serve", "--http", "127.0.0.1:0", "--oauth-issuer", "http://id.example.test"], {
      cwd: root.path,
    });
    expect([r.code, r.stderr]).toEqual([
      5,
      expect.stringContaining("--oauth-issuer issuer http://id.example.test is not https"),
    ]);
  });

  test("an untrusted workspace config cannot choose the issuer", async () => {
    await using root = tempDir();
    const s = site(root.path);
    writeFileSync(join(s.ws, "toolgate.json"), JSON.stringify({ serve: { oauth: { issuer: issuer.issuer } } }));
    const r = await run(["serve", "--http", "127.0.0.1:0"], { cwd: s.ws, env: { HOME: s.home } });
    expect([r.code, r.stderr]).toEqual([5, expect.stringContaining("serve.oauth")]);
  });
});

describe("each caller its own narrowing", () => {
  const callers = () => ({
    serve: {
      oauth: { issuer: issuer.issuer, scopes: ["mcp:tools"] },
      callers: [
        { name: "readers", match: { groups: "readers" }, profile: "scout" },
        { name: "writers", match: { groups: ["writers"] } },
        { name: "machines", match: { client_id: "ci-bot" }, profile: "scout", approve: [] },
      ],
    },
  });
  const LINE = ["--allow-write", "--approve", "file_read,file_write"];

  test("a reader cannot list or call file_write, a writer can; a caller no rule admits is 403", async () => {
    await using root = tempDir();
    await using s = await served(root, LINE, callers());
    const [alice, bob, carol] = [
      await issuer.userToken("alice", s.url),
      await issuer.userToken("bob", s.url),
      await issuer.userToken("carol", s.url),
    ];
    {
      await using a = await connect(s.url, { token: alice });
      const names = (await a.listTools()).tools.map((t) => t.name);
      expect([names.includes("file_read"), names.includes("file_write")]).toEqual([true, false]);
      const w = await a.callTool({ name: "file_write", arguments: { path: "by-alice.txt", content: "a" } });
      expect([w.isError, textJson(w).error_code]).toEqual([true, "profile.excluded"]);
      expect(existsSync(join(s.ws, "by-alice.txt"))).toBe(false);
      expect(textJson(await a.callTool({ name: "file_read", arguments: { path: "a.txt" } }))).toMatchObject({
        content: expect.stringContaining("alpha"),
      });
    }
    {
      await using b = await connect(s.url, { token: bob });
      expect((await b.listTools()).tools.map((t) => t.name)).toContain("file_write");
      const w = await b.callTool({ name: "file_write", arguments: { path: "by-bob.txt", content: "b" } });
      expect(w.isError).toBeUndefined();
      expect(readFileSync(join(s.ws, "by-bob.txt"), "utf8")).toBe("b");
    }
    const refused = await initialize(s.url, carol);
    expect([refused.status, ((await refused.json()) as { error: { message: string } }).error.message]).toEqual([
      403,
      "Forbidden: no caller rule of this server admits carol via team-app",
    ]);
    await s.said("a caller no rule admits was refused: carol via team-app");
    expect(s.stderr().split("a new caller: alice via team-app (rule readers, profile scout)\n")).toHaveLength(2);
    expect(s.stderr()).toContain("a new caller: bob via team-app (rule writers)\n");
  });

  test("a machine's rule narrows its approvals too: file_read not pre-approved, nobody to ask", async () => {
    await using root = tempDir();
    await using s = await served(root, LINE, callers());
    await using m = await connect(s.url, { token: await issuer.machineToken(s.url) });
    const r = await m.callTool({ name: "file_read", arguments: { path: "a.txt" } });
    expect([r.isError, textJson(r).error_code]).toEqual([true, "approval.required"]);
  });

  test("a session belongs to the caller that opened it: another caller's token on its id is 404", async () => {
    await using root = tempDir();
    await using s = await served(root, LINE, callers());
    const [alice, bob] = [await issuer.userToken("alice", s.url), await issuer.userToken("bob", s.url)];
    const opened = await initialize(s.url, alice);
    const id = opened.headers.get("mcp-session-id")!;
    const list = (token: string) =>
      fetch(s.url, {
        method: "POST",
        headers: {
          ...POST_HEADERS,
          Authorization: `Bearer ${token}`,
          "Mcp-Session-Id": id,
          "Mcp-Protocol-Version": "2025-06-18",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
      });
    const other = await list(bob);
    expect([other.status, await other.json()]).toEqual([
      404,
      { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null },
    ]);
    expect((await list(alice)).status).toBe(200);
    // A second token of the same caller (signed in again) is the same caller.
    expect((await list(await issuer.userToken("alice", s.url))).status).toBe(200);
  });

  test("the journal names each caller and holds no token; log --caller keeps one caller's calls", async () => {
    await using root = tempDir();
    await using s = await served(root, LINE, callers());
    const tokens = [
      await issuer.userToken("alice", s.url),
      await issuer.userToken("bob", s.url),
      await issuer.machineToken(s.url),
    ];
    for (const token of tokens) {
      await using c = await connect(s.url, { token });
      await c.callTool({ name: "file_read", arguments: { path: "a.txt" } });
    }
    expect(await s.stop()).toBe(0);
    const rows = await journal(s.ws, s.home);
    expect(rows.map((r) => [r.tool, r.status, r.caller_sub, r.caller_client])).toEqual([
      ["file_read", "success", "alice", "team-app"],
      ["file_read", "success", "bob", "team-app"],
      ["file_read", "failed", "ci-bot", "ci-bot"],
    ]);
    const only = await run(["log", "--json", "--caller", "bob"], { cwd: s.ws, env: { HOME: s.home } });
    expect(
      only.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).caller_sub),
    ).toEqual(["bob"]);
    const machine = await run(["log", "--json", "--caller", "ci-bot"], { cwd: s.ws, env: { HOME: s.home } });
    expect(
      machine.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).error_code),
    ).toEqual(["approval.required"]);
    const state = join(s.ws, ".toolgate");
    const stored = readdirSync(state, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name)).toString("latin1"))
      .join("\n");
    for (const t of tokens) {
      expect(stored.includes(t)).toBe(false);
      expect(s.stderr().includes(t)).toBe(false);
      for (const part of t.split(".")) expect(stored.includes(part)).toBe(false);
    }
  });

  test("a rule's requests_per_minute: past it, 429 with Retry-After; other callers go on", async () => {
    await using root = tempDir();
    const config = callers();
    await using s = await served(root, LINE, {
      serve: {
        ...config.serve,
        callers: [{ ...config.serve.callers[0]!, requests_per_minute: 3 }, config.serve.callers[1]!],
      },
    });
    const [alice, bob] = [await issuer.userToken("alice", s.url), await issuer.userToken("bob", s.url)];
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await initialize(s.url, alice)).status);
    const limited = await initialize(s.url, alice);
    expect([...statuses, limited.status, limited.headers.get("retry-after")]).toEqual([200, 200, 200, 429, "20"]);
    expect(((await limited.json()) as { error: { message: string } }).error.message).toBe(
      "Too Many Requests: this caller may send 3 requests a minute; retry in 20 s",
    );
    expect((await initialize(s.url, bob)).status).toBe(200);
  });

  test("a caller's token never reaches an upstream server", async () => {
    await using root = tempDir();
    await using up = sessionsServer();
    const config = { ...callers(), mcpServers: { up: { type: "http", url: up.url } } };
    await using s = await served(root, [...LINE, `--allow-net=127.0.0.1:${up.port}`, "--approve", "up__echo"], config);
    const bob = await issuer.userToken("bob", s.url);
    await using b = await connect(s.url, { token: bob });
    const r = await b.callTool({ name: "up__echo", arguments: { text: "hi" } });
    expect(r.isError).toBeUndefined();
    expect(up.authorizations.length).toBeGreaterThan(0);
    expect(up.authorizations.filter((a) => a !== null)).toEqual([]);
  });

  test("a rule naming an unknown profile stops the start (exit 5)", async () => {
    await using root = tempDir();
    const p = place(root.path, { serve: { oauth: { issuer: issuer.issuer }, callers: [{ profile: "nobody" }] } });
    const r = await run(["serve", "--http", "127.0.0.1:0", "--config", p.config], { cwd: p.ws, env: { HOME: p.home } });
    expect([r.code, r.stderr]).toEqual([
      5,
      expect.stringContaining('serve.callers[0].profile: no profile named "nobody"'),
    ]);
  });
});

// Last: these rotate the provider's keys and stop it.
describe("the issuer's keys", () => {
  test("a rotated key verifies after one refresh; a flood of unknown kids fetches the set no more", async () => {
    await using root = tempDir();
    await using s = await served(root);
    const before = issuer.jwksFetches();
    await issuer.rotate();
    const r = await initialize(s.url, await issuer.userToken("alice", s.url));
    expect(r.status).toBe(200);
    expect(issuer.jwksFetches()).toBe(before + 1);
    const stranger = await generateKeyPair("ES256");
    const now = Math.floor(Date.now() / 1000);
    const flood = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        new SignJWT({ iss: issuer.issuer, aud: s.url, sub: "mallory", exp: now + 300 })
          .setProtectedHeader({ alg: "ES256", kid: `made-up-${i}` })
          .sign(stranger.privateKey),
      ),
    );
    const statuses = await Promise.all(flood.map(async (t) => (await initialize(s.url, t)).status));
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect(issuer.jwksFetches()).toBe(before + 1);
  });

  test("the provider stopped: calls whose keys are cached go on", async () => {
    await using root = tempDir();
    await using s = await served(root, ["--approve", "file_read"]);
    const token = await issuer.userToken("bob", s.url);
    await issuer.stop();
    try {
      await using client = await connect(s.url, { token });
      const r = await client.callTool({ name: "file_read", arguments: { path: "a.txt" } });
      expect(textJson(r)).toMatchObject({ content: expect.stringContaining("alpha") });
    } finally {
      await issuer.start();
    }
  });
});
