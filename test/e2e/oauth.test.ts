// End to end: an MCP server behind OAuth (test/fixtures/oauth/server.ts, loopback, its
// authorization server on a second port). `toolgate auth` with $BROWSER standing in for the
// user's browser, then calls with the stored token, a refresh after expiry, --logout, the
// refusal without a token, tokens never in any view, and what a workspace config cannot do.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir, type RunResult } from "../helpers.ts";
import { startOAuthFixture, type OAuthFixture } from "../fixtures/oauth/server.ts";
import { serve } from "../serve/client.ts";

let fx: OAuthFixture;
let evil: OAuthFixture;
beforeAll(async () => {
  fx = await startOAuthFixture();
  evil = await startOAuthFixture();
});
afterAll(async () => {
  await fx.stop();
  await evil.stop();
});

const BROWSER = `${process.execPath} ${join(import.meta.dir, "..", "fixtures", "oauth", "browser.ts")}`;

/** A user: a state folder apart from the workspace, a trusted --config naming the server. */
function user(root: string, url = fx.url, type = "http") {
  const ws = join(root, "ws");
  const cfg = join(root, "cfg");
  mkdirSync(ws, { recursive: true });
  mkdirSync(cfg, { recursive: true });
  writeFileSync(join(cfg, "toolgate.json"), JSON.stringify({ workspace: ws, mcpServers: { srv: { type, url } } }));
  const env = { HOME: root, XDG_STATE_HOME: join(root, "state"), BROWSER };
  const net = (f: OAuthFixture) => `--allow-net=127.0.0.1:${f.resourcePort},127.0.0.1:${f.authPort}`;
  const toolgate = (args: string[], f = fx) =>
    run([...args, "--config", join(cfg, "toolgate.json"), net(f), "--approve", "all"], { cwd: ws, env });
  const flags = (f = fx) => ["--config", join(cfg, "toolgate.json"), net(f), "--approve", "all"];
  return { ws, env, state: join(root, "state", "toolgate"), toolgate, net, flags };
}

const everything = (r: RunResult) => `${r.stdout}\n${r.stderr}`;
const leaked = (text: string, tokens: readonly string[]) => tokens.filter((t) => text.includes(t));

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

describe("toolgate auth", () => {
  test("authorizes, then a call uses the stored token; files 0600 in a 0700 folder", async () => {
    await using d = tempDir();
    const u = user(d.path);
    const a = await u.toolgate(["auth", "srv"]);
    expect([a.code, json(a)]).toEqual([0, { server: "srv", authorized: true, authorizations: 1, tools: 3 }]);
    // The URL alone on a stderr line, with PKCE and the resource (RFC 8707).
    const printed = a.stderr.split("\n").find((l) => l.startsWith(`http://127.0.0.1:${fx.authPort}/authorize?`))!;
    const q = new URL(printed).searchParams;
    expect({
      method: q.get("code_challenge_method"),
      resource: q.get("resource"),
      redirect: q.get("redirect_uri")?.replace(/:\d+\//, ":PORT/"),
    }).toEqual({ method: "S256", resource: fx.url, redirect: "http://127.0.0.1:PORT/callback" });
    const dir = join(u.state, "auth");
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const [file] = readdirSync(dir);
    expect(statSync(join(dir, file!)).mode & 0o777).toBe(0o600);
    const c = await u.toolgate(["call", "srv__hello", "{}"]);
    expect([c.code, json(c)]).toEqual([
      0,
      { status: "success", tool: "srv__hello", payload: { content: [{ type: "text", text: "hello" }] } },
    ]);
  });

  test("a legacy SSE server is authorized and called the same way", async () => {
    await using d = tempDir();
    const u = user(d.path, fx.sseUrl, "sse");
    const a = await u.toolgate(["auth", "srv"]);
    expect([a.code, json(a)]).toEqual([0, { server: "srv", authorized: true, authorizations: 1, tools: 3 }]);
    const c = await u.toolgate(["call", "srv__hello", "{}"]);
    expect([c.code, json(c)]).toEqual([
      0,
      { status: "success", tool: "srv__hello", payload: { content: [{ type: "text", text: "hello" }] } },
    ]);
  });

  test("serve uses the stored token: its client calls the server's tool; without one the call is isError mcp.auth_required", async () => {
    await using d = tempDir();
    const u = user(d.path);
    {
      await using served = await serve(u.flags(), { cwd: u.ws, home: d.path, env: { BROWSER } });
      const r = await served.client.callTool({ name: "srv__hello", arguments: {} });
      expect(r.isError).toBe(true);
      expect(JSON.stringify(r.content)).toContain("mcp.auth_required");
    }
    expect((await u.toolgate(["auth", "srv"])).code).toBe(0);
    await using served = await serve(u.flags(), { cwd: u.ws, home: d.path, env: { BROWSER } });
    const r = await served.client.callTool({ name: "srv__hello", arguments: {} });
    expect(r).toMatchObject({ content: [{ type: "text", text: "hello" }] });
    expect(r.isError).toBeFalsy();
  });

  test("step-up: a call refused for a wider scope names it; the next auth asks for it, and the old token works until then", async () => {
    await using d = tempDir();
    const u = user(d.path);
    expect((await u.toolgate(["auth", "srv"])).code).toBe(0);
    const refused = await u.toolgate(["call", "srv__write_note", "{}"]);
    expect([refused.code, json(refused).error_code, json(refused).details]).toEqual([
      4,
      "mcp.auth_required",
      { server: "srv", command: "toolgate auth srv", scope: "notes:write" },
    ]);
    // The token of the narrower scope still serves other calls.
    expect(json(await u.toolgate(["call", "srv__hello", "{}"])).status).toBe("success");
    const a = await u.toolgate(["auth", "srv"]);
    expect(a.code).toBe(0);
    const printed = a.stderr.split("\n").find((l) => l.includes("/authorize?"))!;
    expect(new URL(printed).searchParams.get("scope")).toBe("notes:write");
    const c = await u.toolgate(["call", "srv__write_note", "{}"]);
    expect([c.code, json(c).payload]).toEqual([0, { content: [{ type: "text", text: "written" }] }]);
  });

  test("an expired token is refreshed without a word", async () => {
    await using d = tempDir();
    const u = user(d.path);
    expect((await u.toolgate(["auth", "srv"])).code).toBe(0);
    fx.expire();
    const before = fx.grants.length;
    const c = await u.toolgate(["call", "srv__hello", "{}"]);
    expect([c.code, json(c).status]).toEqual([0, "success"]);
    expect(fx.grants.slice(before)).toEqual(["refresh_token"]);
  });

  test("without a stored token a call is refused mcp.auth_required (exit 4), naming toolgate auth; nothing is registered", async () => {
    await using d = tempDir();
    const u = user(d.path);
    const grants = fx.grants.length;
    const c = await u.toolgate(["call", "srv__hello", "{}"]);
    expect(c.code).toBe(4);
    expect(json(c)).toMatchObject({ status: "failed", error_code: "mcp.auth_required" });
    expect(json(c).message).toContain("run `toolgate auth srv`");
    // `tools` says the same of the server (its tools are simply not listed).
    const t = await u.toolgate(["tools", "--json"]);
    expect(t.code).toBe(0);
    expect(t.stderr).toContain('mcp:srv failed: MCP server "srv" needs authorization: run `toolgate auth srv`');
    expect(fx.grants.length).toBe(grants);
  });

  test("--logout forgets the tokens: the next call is refused again", async () => {
    await using d = tempDir();
    const u = user(d.path);
    expect((await u.toolgate(["auth", "srv"])).code).toBe(0);
    const out = await u.toolgate(["auth", "srv", "--logout"]);
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('forgot the tokens and client registration of MCP server "srv"');
    expect(readdirSync(join(u.state, "auth"))).toEqual([]);
    const c = await u.toolgate(["call", "srv__hello", "{}"]);
    expect([c.code, json(c).error_code]).toEqual([4, "mcp.auth_required"]);
  });

  test("the authorization server's host needs its own grant: refused before anything is sent to it", async () => {
    await using d = tempDir();
    const u = user(d.path);
    const grants = fx.grants.length;
    const a = await run(
      ["auth", "srv", "--config", join(d.path, "cfg", "toolgate.json"), `--allow-net=127.0.0.1:${fx.resourcePort}`],
      { cwd: u.ws, env: u.env },
    );
    expect(a.code).toBe(4);
    expect(a.stderr).toContain(`--allow-net=127.0.0.1:${fx.authPort}`);
    expect(fx.grants.length).toBe(grants);
  });

  test("token values never reach a result, stderr, the journal, log --json or any state file", async () => {
    await using d = tempDir();
    const u = user(d.path);
    const a = await u.toolgate(["auth", "srv"]);
    const c = await u.toolgate(["call", "srv__echo_auth", "{}"]);
    expect(json(c)).toEqual({
      status: "success",
      tool: "srv__echo_auth",
      payload: { content: [{ type: "text", text: "you sent: Bearer [REDACTED]" }] },
    });
    const log = await u.toolgate(["log", "--json"]);
    expect(log.code).toBe(0);
    const tokens = [...fx.issued];
    expect(leaked(everything(a) + everything(c) + everything(log), tokens)).toEqual([]);
    // The workspace's state (journal, catalog cache) holds none; only the user's auth file does.
    const wsFiles = filesUnder(u.ws)
      .map((f) => readFileSync(f, "latin1"))
      .join("\n");
    expect(leaked(wsFiles, tokens)).toEqual([]);
  });
});

describe("a workspace config only narrows", () => {
  test("it cannot set an OAuth client (id, secret): the boot fails naming the key", async () => {
    await using d = tempDir();
    writeFileSync(
      join(d.path, "toolgate.json"),
      JSON.stringify({
        mcpServers: { srv: { type: "http", url: fx.url, oauth: { client_id: "mine", client_secret: "${STOLEN}" } } },
      }),
    );
    const r = await run(["call", "srv__hello", "{}", `--allow-net=127.0.0.1:${fx.resourcePort}`], {
      cwd: d.path,
      env: { XDG_STATE_HOME: join(d.path, "..", "elsewhere") },
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("mcpServers.srv.oauth: chooses the OAuth client");
  });

  test("naming the same server at another URL gets none of its tokens", async () => {
    await using d = tempDir();
    const u = user(d.path);
    expect((await u.toolgate(["auth", "srv"])).code).toBe(0);
    // The checkout's own toolgate.json, untrusted: "srv" now points at another server.
    writeFileSync(
      join(u.ws, "toolgate.json"),
      JSON.stringify({ mcpServers: { srv: { type: "http", url: evil.url } } }),
    );
    const seen = evil.bearer.length;
    const r = await run(["call", "srv__hello", "{}", u.net(evil), "--approve", "all"], { cwd: u.ws, env: u.env });
    expect([r.code, json(r).error_code]).toEqual([4, "mcp.auth_required"]);
    expect(evil.bearer.slice(seen).filter((b) => b !== undefined)).toEqual([]);
  });
});

describe("bad OAuth settings and places", () => {
  const trusted = (root: string, oauth: Record<string, string>) => {
    mkdirSync(join(root, "ws"), { recursive: true });
    writeFileSync(
      join(root, "cfg.json"),
      JSON.stringify({ workspace: join(root, "ws"), mcpServers: { srv: { type: "http", url: fx.url, oauth } } }),
    );
    return (args: string[], env: Record<string, string> = {}) =>
      run(
        [
          ...args,
          "--config",
          join(root, "cfg.json"),
          `--allow-net=127.0.0.1:${fx.resourcePort},127.0.0.1:${fx.authPort}`,
        ],
        { cwd: join(root, "ws"), env: { XDG_STATE_HOME: join(root, "state"), BROWSER, ...env } },
      );
  };

  test.each([
    [
      "a secret without a client_id",
      { client_secret: "s-0123456789" },
      "mcpServers.srv.oauth.client_secret: client_secret needs its client_id beside it",
    ],
    [
      "client_credentials without a secret",
      { grant: "client_credentials", client_id: "ci" },
      "mcpServers.srv.oauth.grant: client_credentials needs client_id and client_secret or private_key",
    ],
    [
      "a metadata URL over http",
      { client_metadata_url: "http://example.com/client.json" },
      "mcpServers.srv.oauth.client_metadata_url: must be an https URL with a path",
    ],
  ])("%s fails the boot (exit 5) saying what and where", async (_, oauth, message) => {
    await using d = tempDir();
    const r = await trusted(d.path, oauth)(["auth", "srv"]);
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(message);
  });

  test("a client secret from a variable needs --allow-env before anything is sent", async () => {
    await using d = tempDir();
    const grants = fx.grants.length;
    const r = await trusted(d.path, { client_id: "pre", client_secret: "${FX_SECRET}" })(["auth", "srv"], {
      FX_SECRET: "fixture-secret-123",
    });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain("--allow-env=FX_SECRET");
    expect(fx.grants.length).toBe(grants);
  });

  test("a user state folder inside the workspace keeps no token: auth refuses (exit 5)", async () => {
    await using d = tempDir();
    const r = await trusted(d.path, {})(["auth", "srv"], { XDG_STATE_HOME: join(d.path, "ws", ".state") });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("lies inside the workspace, where tokens must never be kept");
  });
});
