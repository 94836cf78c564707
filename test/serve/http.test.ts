// End to end: dist/toolgate serve --http, driven by the SDK's Client over Streamable HTTP and by raw
// requests for the status codes. The bearer token is required (generated or from a private file),
// Host and Origin must name this server, sessions are separate (approvals too), bodies and the
// session table are bounded, and SIGTERM ends the server and its children with exit 0.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { connect as dial } from "node:net";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import type { ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { MAX_BODY_BYTES, MAX_SESSIONS } from "../../src/serve/http.ts";
import { ROOT, run, tempDir } from "../helpers.ts";
import { textJson } from "./client.ts";
import { alive, connect, descendantsOf, initializeBody, POST_HEADERS, serveHttp } from "./http-client.ts";
import { site, journal } from "./client.ts";

const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const NODE = Bun.which("node") ?? "/usr/bin/node";

const post = (url: string, headers: Record<string, string>, body = initializeBody) =>
  fetch(url, { method: "POST", headers: { ...POST_HEADERS, ...headers }, body });

/** The status of one request written byte for byte (fetch would refuse or fix such a Host), read from the status line. */
async function rawStatus(port: number, head: readonly string[], body: string): Promise<number> {
  const answer = await new Promise<string>((resolve, reject) => {
    let got = "";
    const socket = dial(port, "127.0.0.1", () =>
      socket.write([...head, `Content-Length: ${Buffer.byteLength(body)}`, "Connection: close", "", body].join("\r\n")),
    );
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer in 10 s to ${JSON.stringify(head)}`)));
    socket.on("data", (d) => {
      got += d.toString("latin1");
      if (got.includes("\r\n")) socket.destroy();
    });
    socket.on("close", () => resolve(got));
    socket.on("error", reject);
  });
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1];
  if (status === undefined)
    throw new Error(`no status line for ${JSON.stringify(head)}: ${JSON.stringify(answer.slice(0, 200))}`);
  return Number(status);
}

describe("serve --http with the SDK's client", () => {
  test("lists, calls and journals with the generated token; stdin closed does not stop it", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serveHttp(["--allow-read", "--approve", "file_read"], { cwd: s.ws, home: s.home });
    expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(served.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(served.stderr().split(served.token!)).toHaveLength(2);
    {
      await using client = await connect(served.url, { token: served.token });
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("file_read");
      const r = await client.callTool({ name: "file_read", arguments: { path: "a.txt" } });
      expect(r.isError).toBeUndefined();
      expect(textJson(r)).toMatchObject({ content: expect.stringContaining("alpha") });
    }
    expect(await served.stop()).toBe(0);
    expect((await journal(s.ws, s.home)).map((x) => [x.tool, x.status])).toEqual([["file_read", "success"]]);
  });

  test("--token-file: the file's token is required and never printed", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const file = join(root.path, "token");
    writeFileSync(file, "  s3cret-token-for-tests-0123456789abcdef\n", { mode: 0o600 });
    await using served = await serveHttp(["--token-file", file], { cwd: s.ws, home: s.home });
    expect(served.token).toBeNull();
    expect(served.stderr()).not.toContain("s3cret");
    await using client = await connect(served.url, { token: "s3cret-token-for-tests-0123456789abcdef" });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect((await post(served.url, { Authorization: "Bearer s3cret-token-for-tests-0123456789abcde" })).status).toBe(
      401,
    );
  });

  test("--no-token on loopback: a client without a header works", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serveHttp(["--no-token"], { cwd: s.ws, home: s.home });
    expect(served.token).toBeNull();
    await using client = await connect(served.url);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("file_read");
  });
});

describe("who may call", () => {
  test("no token or a wrong one: 401 with WWW-Authenticate: Bearer, and the SDK client cannot connect", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serveHttp([], { cwd: s.ws, home: s.home });
    for (const headers of [
      {} as Record<string, string>,
      { Authorization: `Bearer ${served.token}x` },
      { Authorization: `Basic ${served.token}` },
      { Authorization: "Bearer " },
    ]) {
      const r = await post(served.url, headers);
      expect([r.status, r.headers.get("www-authenticate")]).toEqual([401, 'Bearer realm="toolgate"']);
    }
    await expect(connect(served.url)).rejects.toMatchObject({ code: 401 });
    await expect(connect(served.url, { token: "wrong" })).rejects.toMatchObject({ code: 401 });
  });

  test("a Host or Origin that is not this server's: 403 (DNS-rebinding protection), even with the token", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serveHttp([], { cwd: s.ws, home: s.home });
    const port = new URL(served.url).port;
    const auth = { Authorization: `Bearer ${served.token}` };
    const status = async (h: Record<string, string>) => (await post(served.url, { ...auth, ...h })).status;
    expect(await status({ Host: `evil.example:${port}` })).toBe(403);
    expect(await status({ Host: "127.0.0.1:1" })).toBe(403);
    expect(await status({ Host: `192.168.1.1:${port}` })).toBe(403);
    expect(await status({ Origin: "http://evil.example" })).toBe(403);
    expect(await status({ Origin: `http://evil.example:${port}` })).toBe(403);
    expect(await status({ Origin: "null" })).toBe(403);
    expect(await status({ Origin: "file://localhost" })).toBe(403);
    // Loopback names with this port, and loopback origins, are this server.
    for (const h of [
      { Host: `localhost:${port}` } as Record<string, string>,
      { Host: `[::1]:${port}` },
      { Origin: "http://localhost:5173" },
      { Origin: `https://127.0.0.1:${port}` },
    ])
      expect(await status(h)).toBe(200);
  });
  test("a Host that is not a host (a comma, a space, two Host lines, a bad port): refused 400 or 403 before anything reads the request, never 500", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serveHttp([], { cwd: s.ws, home: s.home });
    const port = Number(new URL(served.url).port);
    const own = `127.0.0.1:${port}`;
    const hosts = [
      ["a,b"],
      [`${own},x`],
      [`${own}, ${own}`],
      [own, own],
      ["a b"],
      [`[::1:${port}`],
      ["%zz"],
      ["a/b"],
      ["u@a"],
      ["127.0.0.1:99999"],
      [`:${port}`],
      [""],
    ];
    const seen: [string[], string, number][] = [];
    for (const lines of hosts) {
      for (const [method, auth] of [
        ["POST", `Bearer ${served.token}`],
        ["GET", null],
      ] as const) {
        const head = [
          `${method} /mcp HTTP/1.1`,
          ...lines.map((h) => `Host: ${h}`),
          "Accept: application/json, text/event-stream",
          "Content-Type: application/json",
          ...(auth ? [`Authorization: ${auth}`] : []),
        ];
        seen.push([lines, method, await rawStatus(port, head, method === "POST" ? initializeBody : "")]);
      }
    }
    expect(seen.filter(([, , status]) => status !== 400 && status !== 403)).toEqual([]);
    // And the server still answers its own Host.
    expect((await post(served.url, { Authorization: `Bearer ${served.token}` })).status).toBe(200);
  });
  test("a wildcard bind (0.0.0.0 with --http-public): Host must still name this machine, never another name or the wildcard", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serveHttp(["--http", "0.0.0.0:0", "--http-public"], { cwd: s.ws, home: s.home });
    const at = new URL(served.url);
    expect(at.hostname).toBe("0.0.0.0");
    const url = `http://127.0.0.1:${at.port}${at.pathname}`;
    const auth = { Authorization: `Bearer ${served.token}` };
    const status = async (h: Record<string, string>) => (await post(url, { ...auth, ...h })).status;
    for (const host of [
      `evil.example:${at.port}`,
      `0.0.0.0:${at.port}`,
      `attacker.test:${at.port}`,
      `203.0.113.9:${at.port}`,
    ])
      expect([host, await status({ Host: host })]).toEqual([host, 403]);
    expect(await status({ Host: `localhost:${at.port}`, Origin: "http://evil.example" })).toBe(403);
    // This machine's own addresses (every interface) and the loopback names are this server.
    const own = Object.values(networkInterfaces())
      .flat()
      .map((a) => a!.address);
    for (const a of ["127.0.0.1", ...own]) {
      const host = `${a.includes(":") ? `[${a}]` : a}:${at.port}`;
      expect([host, await status({ Host: host })]).toEqual([host, 200]);
    }
    // The token is still required off loopback.
    expect((await post(url, { Host: `127.0.0.1:${at.port}` })).status).toBe(401);
  });
});

describe("the Streamable HTTP status codes", () => {
  test("unknown session 404, missing session 400, other methods 405, another path 404", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serveHttp([], { cwd: s.ws, home: s.home });
    const auth = { Authorization: `Bearer ${served.token}` };
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
    expect((await post(served.url, { ...auth, "Mcp-Session-Id": "no-such-session" }, list)).status).toBe(404);
    expect(
      (
        await fetch(served.url, {
          headers: { ...auth, Accept: "text/event-stream", "Mcp-Session-Id": "no-such-session" },
        })
      ).status,
    ).toBe(404);
    expect((await post(served.url, auth, list)).status).toBe(400);
    expect((await fetch(served.url, { headers: { ...auth, Accept: "text/event-stream" } })).status).toBe(400);
    expect((await fetch(served.url, { method: "DELETE", headers: auth })).status).toBe(400);
    const put = await fetch(served.url, { method: "PUT", headers: auth, body: "{}" });
    expect([put.status, put.headers.get("allow")]).toEqual([405, "GET, POST, DELETE"]);
    expect((await post(served.url.replace(/\/mcp$/, "/other"), auth)).status).toBe(404);
    expect((await post(served.url, auth, "{not json")).status).toBe(400);
  });

  test("DELETE ends a session: its id is then unknown (404)", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serveHttp([], { cwd: s.ws, home: s.home });
    const auth = { Authorization: `Bearer ${served.token}` };
    const init = await post(served.url, auth);
    const id = init.headers.get("mcp-session-id")!;
    await init.body?.cancel();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const session = { ...auth, "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18" };
    expect((await fetch(served.url, { method: "DELETE", headers: session })).status).toBe(200);
    expect((await fetch(served.url, { method: "DELETE", headers: session })).status).toBe(404);
  });

  test(`a body over ${MAX_BODY_BYTES} bytes is 413; past ${MAX_SESSIONS} open sessions the least recently used idle one ends (404) for a new one`, async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serveHttp([], { cwd: s.ws, home: s.home });
    const auth = { Authorization: `Bearer ${served.token}` };
    const big = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { pad: "x".repeat(MAX_BODY_BYTES) },
    });
    const tooBig = await post(served.url, auth, big);
    expect([tooBig.status, ((await tooBig.json()) as any).error.message]).toEqual([
      413,
      `Payload Too Large: a request body may be at most ${MAX_BODY_BYTES} bytes`,
    ]);
    const ids: string[] = [];
    for (let i = 0; i < MAX_SESSIONS; i++) {
      const r = await post(served.url, auth);
      expect(r.status).toBe(200);
      ids.push(r.headers.get("mcp-session-id")!);
      await r.body?.cancel();
    }
    const next = await post(served.url, auth);
    expect(next.status).toBe(200);
    await next.body?.cancel();
    const session = (id: string) => ({ ...auth, "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18" });
    expect([
      (await fetch(served.url, { method: "DELETE", headers: session(ids[0]!) })).status,
      (await fetch(served.url, { method: "DELETE", headers: session(ids[1]!) })).status,
    ]).toEqual([404, 200]);
  });
});

describe("sessions are independent", () => {
  test("an 'always' answered in one session is not seen by another: the second is asked again", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serveHttp(["--allow-read"], { cwd: s.ws, home: s.home });
    const askedA: ElicitRequest[] = [];
    const askedB: ElicitRequest[] = [];
    await using a = await connect(served.url, {
      token: served.token,
      elicit: (r) => (askedA.push(r), { action: "accept", content: { approve: "always" } }),
    });
    await using b = await connect(served.url, {
      token: served.token,
      elicit: (r) => (askedB.push(r), { action: "decline" }),
    });
    for (let i = 0; i < 3; i++)
      expect((await a.callTool({ name: "file_read", arguments: { path: "a.txt" } })).isError).toBeUndefined();
    expect(askedA).toHaveLength(1);
    const refused = await b.callTool({ name: "file_read", arguments: { path: "a.txt" } });
    expect(refused._meta).toEqual({ toolgate: { status: "failed", error_code: "approval.denied" } });
    expect(askedB).toHaveLength(1);
    expect(askedB[0]!.params.message).toContain("file_read needs approval");
  });
});

describe("shutdown", () => {
  test("SIGTERM with a call in flight: the call is answered within the grace, a new session is 503, a new call refused, exit 0", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const cfg = join(root.path, "toolgate.json");
    writeFileSync(cfg, JSON.stringify({ workspace: s.ws, las: { shutdown_grace_secs: 1 } }));
    const served = await serveHttp(["--config", cfg, "--allow-run", "--approve", "bash,plan"], {
      cwd: s.ws,
      home: s.home,
    });
    await using client = await connect(served.url, { token: served.token });
    const pidFile = join(s.ws, "sleep.pid");
    const inflight = client.callTool({ name: "bash", arguments: { command: "echo $$ > sleep.pid; exec sleep 30" } });
    for (let i = 0; i < 200 && !existsSync(pidFile); i++) await Bun.sleep(25);
    const sleeper = Number(readFileSync(pidFile, "utf8"));
    const exited = served.stop();
    await served.said("stopping (SIGTERM)");
    const late = await client.callTool({ name: "plan", arguments: {} });
    expect(late._meta).toEqual({ toolgate: { status: "failed", error_code: "serve.shutting_down" } });
    const fresh = await post(served.url, { Authorization: `Bearer ${served.token}` });
    expect(fresh.status).toBe(503);
    expect((await inflight).isError).toBe(true);
    expect(await exited).toBe(0);
    expect(alive(sleeper)).toBe(false);
  }, 30_000);

  test("SIGTERM: exit 0, and the server's MCP child is gone with it", async () => {
    await using root = tempDir();
    const s = site(root.path);
    writeFileSync(
      join(s.ws, "toolgate.json"),
      JSON.stringify({ mcpServers: { everything: { command: NODE, args: [EVERYTHING, "stdio"] } } }),
    );
    const served = await serveHttp(["--allow-run", "--approve", "all"], { cwd: s.ws, home: s.home });
    await using client = await connect(served.url, { token: served.token });
    const echo = await client.callTool({ name: "everything__echo", arguments: { message: "hi" } });
    expect(echo.content).toEqual([{ type: "text", text: "Echo: hi" }]);
    const below = descendantsOf(served.pid);
    expect(below.length).toBeGreaterThan(0);
    expect(await served.stop()).toBe(0);
    expect(below.filter(alive)).toEqual([]);
    expect(served.stderr()).not.toContain("rror");
  });
});

test("serve --help lists the HTTP flags", async () => {
  await using root = tempDir();
  const r = await run(["serve", "--help"], { cwd: root.path });
  for (const flag of ["--http=<HOST:PORT>", "--token-file=<FILE>", "--no-token", "--http-public"])
    expect(r.stdout + r.stderr).toContain(flag);
});

describe("refused before anything starts (exit 2)", () => {
  const cases: [string, string[], string][] = [
    ["a non-loopback address without --http-public", ["--http", "0.0.0.0:0"], "--http-public"],
    ["--no-token off loopback (without --http-public)", ["--http", "0.0.0.0:0", "--no-token"], "--http-public"],
    [
      "--no-token off loopback (with --http-public)",
      ["--http", "0.0.0.0:0", "--http-public", "--no-token"],
      "--no-token is allowed only on a loopback address",
    ],
    ["a host name", ["--http", "example.com:80"], "is not an IP address or localhost"],
    ["no port", ["--http", "127.0.0.1"], "is not HOST:PORT"],
    ["--token-file without --http", ["--token-file", "x"], "--token-file applies only to --http"],
  ];
  test.each(cases)("%s", async (_, args, message) => {
    await using root = tempDir();
    const r = await run(["serve", ...args], { cwd: root.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  test("an empty or world-readable token file", async () => {
    await using root = tempDir();
    const empty = join(root.path, "empty");
    writeFileSync(empty, " \n", { mode: 0o600 });
    const open = join(root.path, "open");
    writeFileSync(open, "tok\n");
    chmodSync(open, 0o644);
    const e = await run(["serve", "--http", "127.0.0.1:0", "--token-file", empty], { cwd: root.path });
    expect([e.code, e.stderr]).toEqual([2, expect.stringContaining(`--token-file ${empty} is empty`)]);
    const o = await run(["serve", "--http", "127.0.0.1:0", "--token-file", open], { cwd: root.path });
    expect([o.code, o.stderr]).toEqual([2, expect.stringContaining(`chmod 600 ${open}`)]);
  });
});
