// End to end: the clients of a gateway that is an OAuth protected resource. dist/toolgate serve
// --http --oauth-issuer against a real OpenID provider (test/fixtures/oidc/issuer.ts), and on the
// other side: a second toolgate naming the gateway as its HTTP MCP server (`toolgate auth` with a
// person answering the provider's sign-in and consent forms, test/support/oidc.ts, then `toolgate
// call`), the MCP SDK's Client with its own OAuth provider (registered by itself, auth code + PKCE),
// and machines with client credentials (toolgate's own client, and a bearer token). The gateway's
// journal names each caller.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, tempDir, type TempDir } from "../helpers.ts";
import { CLI, MACHINE, MACHINE_SECRET, startIssuer, type Issuer } from "../fixtures/oidc/issuer.ts";
import { signIn } from "../support/oidc.ts";
import { serveHttp, type HttpServe } from "../serve/http-client.ts";
import { journal, site } from "../serve/client.ts";

let issuer: Issuer;
beforeAll(async () => {
  issuer = await startIssuer();
});
afterAll(async () => {
  await issuer?.stop();
});

/** The gateway: a workspace holding a.txt, its trusted --config asking for tokens of the issuer. */
async function gateway(root: TempDir, serve: Record<string, unknown> = {}): Promise<HttpServe & { ws: string; home: string }> {
  const dir = mkdirOnce(join(root.path, "gw"));
  const s = site(dir);
  const config = join(dir, "toolgate.json");
  writeFileSync(config, JSON.stringify({ workspace: s.ws, serve: { oauth: { issuer: issuer.issuer, scopes: ["mcp:tools"] }, ...serve } }));
  const g = await serveHttp(["--config", config, "--allow-read", "--approve", "file_read"], { cwd: s.ws, home: s.home });
  return Object.assign(g, s);
}

function mkdirOnce(dir: string): string {
  mkdirSync(dir);
  return dir;
}

/** A second toolgate (its own workspace, HOME and state) whose trusted config names the gateway "gw". */
function clientOf(root: TempDir, g: HttpServe, oauth?: Record<string, string>) {
  const dir = mkdirOnce(join(root.path, "client"));
  const ws = mkdirOnce(join(dir, "ws"));
  const config = join(dir, "toolgate.json");
  writeFileSync(config, JSON.stringify({ workspace: ws, mcpServers: { gw: { type: "http", url: g.url, ...(oauth ? { oauth } : {}) } } }));
  const env = { HOME: dir, XDG_STATE_HOME: join(dir, "state") };
  const flags = ["--config", config, `--allow-net=127.0.0.1:${new URL(g.url).port},127.0.0.1:${issuer.port}`];
  return { ws, env, flags, toolgate: (args: string[]) => run([...args, ...flags], { cwd: ws, env }) };
}

/** `toolgate auth SERVER` as a process: resolves with the authorization URL it prints alone on a stderr line. */
function authProcess(args: string[], cwd: string, env: Record<string, string>) {
  const proc = Bun.spawn([BIN, "auth", ...args], { cwd, env: { PATH: "/usr/bin:/bin", CI: "true", ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
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
  test("toolgate auth signs a person in (login and consent forms, PKCE), then toolgate call reaches the gateway as them", async () => {
    await using root = tempDir();
    await using g = await gateway(root);
    const c = clientOf(root, g, { client_id: CLI });
    const auth = authProcess(["gw", ...c.flags], c.ws, c.env);
    try {
      const url = new URL(await auth.printed);
      const q = url.searchParams;
      expect({ client: q.get("client_id"), method: q.get("code_challenge_method"), resource: q.get("resource"), scope: q.get("scope") }).toEqual({ client: CLI, method: "S256", resource: g.url, scope: "mcp:tools" });
      const redirect = q.get("redirect_uri")!;
      expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const signed = await signIn(url.href, "alice", { redirectPrefix: redirect, deliver: true });
      expect(signed.forms).toEqual(["login", "consent"]);
      expect(signed.consentText).toBe(`${CLI} asks for ${g.url}: mcp:tools`);
      expect(signed.delivered).toEqual({ status: 200, text: expect.stringContaining("toolgate is authorized") });
      const done = await auth.finished;
      expect([done.code, done.stdout && JSON.parse(done.stdout)]).toEqual([0, { server: "gw", authorized: true, authorizations: 1, tools: expect.any(Number) }]);
    } finally {
      auth.kill();
    }
    const call = await c.toolgate(["call", "gw__file_read", JSON.stringify({ path: "a.txt" }), "--approve", "all"]);
    expect([call.code, json(call).status, JSON.stringify(json(call).payload)]).toEqual([0, "success", expect.stringContaining("alpha")]);
    await g.said(`a new caller: alice via ${CLI}`);
    expect(await g.stop()).toBe(0);
    const rows = await journal(g.ws, g.home);
    expect(rows.map((r) => [r.tool, r.status, r.caller_sub, r.caller_client])).toEqual([["file_read", "success", "alice", CLI]]);
  });

  test("a machine: client credentials from toolgate's config, the token for the gateway's resource", async () => {
    await using root = tempDir();
    await using g = await gateway(root);
    const c = clientOf(root, g, { grant: "client_credentials", client_id: MACHINE, client_secret: MACHINE_SECRET });
    const call = await c.toolgate(["call", "gw__file_read", JSON.stringify({ path: "a.txt" }), "--approve", "all"]);
    expect([call.code, json(call).status, JSON.stringify(json(call).payload)]).toEqual([0, "success", expect.stringContaining("alpha")]);
    expect(await g.stop()).toBe(0);
    const rows = await journal(g.ws, g.home);
    expect(rows.map((r) => [r.tool, r.status, r.caller_sub, r.caller_client])).toEqual([["file_read", "success", MACHINE, MACHINE]]);
  });

  test("a machine whose configured scope falls short: the gateway's 403 names the scope, the next token asks for it too", async () => {
    await using root = tempDir();
    await using g = await gateway(root);
    const c = clientOf(root, g, { grant: "client_credentials", client_id: MACHINE, client_secret: MACHINE_SECRET, scope: "mcp:admin" });
    const call = await c.toolgate(["call", "gw__file_read", JSON.stringify({ path: "a.txt" }), "--approve", "all"]);
    expect([call.code, json(call).status]).toEqual([0, "success"]);
    expect(await g.stop()).toBe(0);
    expect((await journal(g.ws, g.home)).map((r) => r.caller_sub)).toEqual([MACHINE]);
  });
});
