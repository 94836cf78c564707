// End to end (the compiled binary, inside a namespace holding only loopback): `localhost` grants
// reach a loopback MCP server and the OAuth server on it in one round, grants are a union, and a
// server that answers 429 is said to be rate limiting.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";
import { answerMcp, HELLO } from "../support/http-mcp-server.ts";
import { inLoopbackNamespace } from "../http/netns.ts";

const BROWSER = `${process.execPath} ${join(import.meta.dir, "..", "fixtures", "oauth", "browser.ts")}`;

inLoopbackNamespace(import.meta.path, () => {
  /** One MCP server (stateless Streamable HTTP) answering `hello`. */
  const mcp = (req: Request) => answerMcp(req, { name: "local", tools: [{ ...HELLO, description: "Greets" }] });
  const token = "local-access-token-0123456789";
  const hosts: string[] = [];
  // The MCP server and its OAuth authorization server on one port, naming themselves by `localhost`
  // (as a server started on a developer's machine does): /open without auth, /mcp behind a token,
  // /limited always 429 (with Retry-After), /limited-bare 429 without it.
  const local = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req): Promise<Response> {
      const url = new URL(req.url);
      hosts.push(req.headers.get("host") ?? "");
      const base: string = `http://localhost:${local.port}`;
      const body = async () => new URLSearchParams(await req.text());
      switch (url.pathname) {
        case "/open":
          return mcp(req);
        case "/limited":
          return new Response("slow down", { status: 429, headers: { "retry-after": "7" } });
        case "/limited-bare":
          return new Response("slow down", { status: 429 });
        case "/.well-known/oauth-protected-resource/mcp":
          return Response.json({ resource: `${base}/mcp`, authorization_servers: [base] });
        case "/.well-known/oauth-authorization-server":
          return Response.json({
            issuer: base,
            authorization_endpoint: `${base}/authorize`,
            token_endpoint: `${base}/token`,
            registration_endpoint: `${base}/register`,
            response_types_supported: ["code"],
            grant_types_supported: ["authorization_code"],
            code_challenge_methods_supported: ["S256"],
            token_endpoint_auth_methods_supported: ["none"],
          });
        case "/register":
          return Response.json(
            {
              ...((await req.json()) as Record<string, unknown>),
              client_id: "local-client",
              token_endpoint_auth_method: "none",
            },
            { status: 201 },
          );
        case "/authorize": {
          const back = new URL(url.searchParams.get("redirect_uri")!);
          back.searchParams.set("code", "local-code");
          back.searchParams.set("state", url.searchParams.get("state") ?? "");
          return Response.redirect(back.href, 302);
        }
        case "/token": {
          const p = await body();
          if (p.get("code") !== "local-code" || !p.get("code_verifier"))
            return Response.json({ error: "invalid_grant" }, { status: 400 });
          return Response.json({ access_token: token, token_type: "Bearer", expires_in: 3600 });
        }
        case "/mcp":
          if (req.headers.get("authorization") !== `Bearer ${token}`) {
            return Response.json(
              { error: "invalid_token" },
              {
                status: 401,
                headers: {
                  "www-authenticate": `Bearer error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
                },
              },
            );
          }
          return mcp(req);
        default:
          return new Response("not here", { status: 404 });
      }
    },
  });
  afterAll(() => local.stop(true));
  const P = local.port;

  /** A workspace whose trusted --config (beside it) names one server; HOME and the user state apart. */
  function user(root: string, url: string) {
    const ws = join(root, "ws");
    const cfg = join(root, "cfg", "toolgate.json");
    mkdirSync(ws, { recursive: true });
    mkdirSync(join(root, "cfg"));
    writeFileSync(cfg, JSON.stringify({ mcpServers: { srv: { type: "http", url } } }));
    const env = { HOME: root, XDG_STATE_HOME: join(root, "state"), BROWSER };
    return (args: string[]) => run([...args, "--config", cfg, "--approve", "all"], { cwd: ws, env });
  }

  describe("localhost is loopback by definition", () => {
    test("--allow-net=localhost:PORT reaches http://localhost:PORT/mcp (no DNS: this namespace has none)", async () => {
      await using d = tempDir();
      const toolgate = user(d.path, `http://localhost:${P}/open`);
      hosts.length = 0;
      const r = await toolgate(["call", "srv__hello", "{}", `--allow-net=localhost:${P}`]);
      expect([r.code, json(r)], r.stderr).toEqual([
        0,
        { status: "success", tool: "srv__hello", payload: { content: [{ type: "text", text: "hello" }] } },
      ]);
      // The Host header is the name the URL gave.
      expect(new Set(hosts)).toEqual(new Set([`localhost:${P}`]));
    });

    test("the OAuth server on it is reached with that one grant too: auth, then a call with the token", async () => {
      await using d = tempDir();
      const toolgate = user(d.path, `http://localhost:${P}/mcp`);
      const a = await toolgate(["auth", "srv", `--allow-net=localhost:${P}`]);
      expect([a.code, json(a)], a.stderr).toEqual([
        0,
        { server: "srv", authorized: true, authorizations: 1, tools: 1 },
      ]);
      const c = await toolgate(["call", "srv__hello", "{}", `--allow-net=localhost:${P}`]);
      expect([c.code, json(c).status], c.stderr).toEqual([0, "success"]);
    });

    test("another port of localhost, or localhost by a host-wide grant, is refused naming the exact flag", async () => {
      await using d = tempDir();
      const toolgate = user(d.path, `http://localhost:${P}/open`);
      const r = await toolgate(["call", "srv__hello", "{}", "--allow-net=localhost"]);
      expect(r.code).not.toBe(0);
      expect(r.stdout).toContain(`--allow-net=localhost:${P}`);
    });
  });

  describe("grants are a union", () => {
    test("--allow-net --allow-net=127.0.0.1:PORT reaches the loopback server; the bare grant alone does not", async () => {
      await using d = tempDir();
      const toolgate = user(d.path, `http://127.0.0.1:${P}/open`);
      const both = await toolgate(["call", "srv__hello", "{}", "--allow-net", `--allow-net=127.0.0.1:${P}`]);
      expect([both.code, json(both).status], both.stderr).toEqual([0, "success"]);
      const reversed = await toolgate(["call", "srv__hello", "{}", `--allow-net=127.0.0.1:${P}`, "--allow-net"]);
      expect([reversed.code, json(reversed).status]).toEqual([0, "success"]);
      const bare = await toolgate(["call", "srv__hello", "{}", "--allow-net"]);
      expect(bare.code).not.toBe(0);
      expect(bare.stdout).toContain(`--allow-net=127.0.0.1:${P}`);
    });
  });

  describe("an HTTP 429", () => {
    test("is worded as rate limiting with the server's Retry-After, for tools and for a call", async () => {
      await using d = tempDir();
      const toolgate = user(d.path, `http://localhost:${P}/limited`);
      const listed = await toolgate(["tools", `--allow-net=localhost:${P}`]);
      expect(listed.stderr).toContain(
        `MCP server "srv" is rate limiting: localhost:${P} answered HTTP 429 Too Many Requests; it asks to wait 7 s (Retry-After) before trying again`,
      );
      const r = await toolgate(["call", "srv__hello", "{}", `--allow-net=localhost:${P}`]);
      expect(r.code).toBe(1);
      expect(json(r)).toMatchObject({
        error_code: "mcp.rate_limited",
        details: { server: "srv", status: 429, retry_after: "7" },
      });
      expect(json(r).message).not.toContain("cannot reach");
    });

    test("without Retry-After it says so", async () => {
      await using d = tempDir();
      const toolgate = user(d.path, `http://localhost:${P}/limited-bare`);
      const listed = await toolgate(["tools", `--allow-net=localhost:${P}`]);
      expect(listed.stderr).toContain("answered HTTP 429 Too Many Requests; it sent no Retry-After; try again later");
    });
  });
});
