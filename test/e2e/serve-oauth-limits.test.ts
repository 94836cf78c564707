// End to end: what each caller of dist/toolgate serve --http --oauth-issuer holds on its own, against
// a real OpenID provider (oidc-provider, test/fixtures/oidc/issuer.ts) and the SDK's
// StreamableHTTPClientTransport: the sessions a rule lets a caller hold open at once (concurrent_sessions:
// one more is 429 with Retry-After, a DELETE frees a seat, another caller is never counted), and an
// "always" answered at an approval remembered as that caller's own (its next session is not asked,
// another caller is, the user's own calls are not approved by it, `toolgate approvals` names it).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { onTerminal, run, tempDir, type TempDir } from "../helpers.ts";
import { startIssuer, type Issuer } from "../fixtures/oidc/issuer.ts";
import { connect, initializeBody, POST_HEADERS, serveHttp, type HttpServe } from "../serve/http-client.ts";
import { site, textJson } from "../serve/client.ts";

let issuer: Issuer;
beforeAll(async () => {
  issuer = await startIssuer();
});
afterAll(async () => {
  await issuer?.stop();
});

/** serve --http --oauth-issuer with a trusted --config beside the workspace holding `serve`. */
async function served(
  root: TempDir,
  args: readonly string[],
  serve: Record<string, unknown>,
): Promise<HttpServe & { ws: string; home: string; env: Record<string, string> }> {
  const s = site(root.path);
  const config = join(root.path, "cfg", "toolgate.json");
  mkdirSync(join(root.path, "cfg"));
  writeFileSync(
    config,
    JSON.stringify({ workspace: s.ws, serve: { oauth: { issuer: issuer.issuer, scopes: ["mcp:tools"] }, ...serve } }),
  );
  const h = await serveHttp(["--oauth-issuer", issuer.issuer, "--config", config, "--allow-read", ...args], {
    cwd: s.ws,
    home: s.home,
  });
  // What serveHttp gives the server: the same user state folder for the commands run beside it.
  return Object.assign(h, { ...s, env: { HOME: s.home, XDG_STATE_HOME: join(s.home, "state") } });
}

const initialize = (url: string, token: string) =>
  fetch(url, { method: "POST", headers: { ...POST_HEADERS, Authorization: `Bearer ${token}` }, body: initializeBody });

const transportOf = (c: { transport?: unknown }) => c.transport as StreamableHTTPClientTransport;

describe("concurrent_sessions: the sessions a caller may hold open at once", () => {
  const rules = {
    callers: [
      { name: "readers", match: { groups: "readers" }, profile: "scout", concurrent_sessions: 2 },
      { name: "writers", match: { groups: ["writers"] }, concurrent_sessions: 1 },
    ],
  };

  test("one more is 429 with Retry-After and how to free one; another caller is not counted; a DELETE frees a seat", async () => {
    await using root = tempDir();
    await using s = await served(root, ["--approve", "file_read"], rules);
    const [alice, bob] = [await issuer.userToken("alice", s.url), await issuer.userToken("bob", s.url)];
    await using a1 = await connect(s.url, { token: alice });
    await using a2 = await connect(s.url, { token: alice });
    // The SDK's client is refused its third session, with the server's words.
    const third = await connect(s.url, { token: alice }).then(
      () => "opened",
      (e: Error & { code?: number }) => [e.code, e.message],
    );
    const says =
      "Too Many Requests: this caller may hold 2 sessions (Mcp-Session-Id) open at once; end one with DELETE /mcp and its Mcp-Session-Id header, or wait until one ends after 30 min without a request";
    expect(third).toEqual([429, expect.stringContaining(says)]);
    // As a client sees it on the wire: Retry-After is when the first of them would end idle.
    const raw = await initialize(s.url, alice);
    const wait = Number(raw.headers.get("retry-after"));
    const body = (await raw.json()) as { jsonrpc: string; error: { code: number; message: string }; id: null };
    expect([raw.status, body.jsonrpc, body.error.code, body.id]).toEqual([429, "2.0", -32000, null]);
    expect(body.error.message).toBe(`${says} (the first in ${wait} s)`);
    expect(wait).toBeGreaterThan(1700);
    expect(wait).toBeLessThanOrEqual(1800);
    // Alice's sessions go on, and bob opens his own (his limit is his).
    for (const c of [a1, a2])
      expect(textJson(await c.callTool({ name: "file_read", arguments: { path: "a.txt" } }))).toMatchObject({
        content: "1\talpha",
      });
    await using b1 = await connect(s.url, { token: bob });
    expect((await initialize(s.url, bob)).status).toBe(429);
    expect((await b1.listTools()).tools.map((t) => t.name)).toContain("file_write");
    // Alice ends one (DELETE): its id is gone, and a new session of hers opens.
    const ended = transportOf(a1).sessionId!;
    await transportOf(a1).terminateSession();
    const gone = await fetch(s.url, {
      method: "POST",
      headers: {
        ...POST_HEADERS,
        Authorization: `Bearer ${alice}`,
        "Mcp-Session-Id": ended,
        "Mcp-Protocol-Version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    expect(gone.status).toBe(404);
    await using a3 = await connect(s.url, { token: alice });
    expect(textJson(await a3.callTool({ name: "file_read", arguments: { path: "a.txt" } }))).toMatchObject({
      content: "1\talpha",
    });
    // Full again: a new token of the same caller is the same caller.
    expect((await initialize(s.url, await issuer.userToken("alice", s.url))).status).toBe(429);
    // Bob's DELETE frees his seat, not alice's.
    await transportOf(b1).terminateSession();
    expect((await initialize(s.url, bob)).status).toBe(200);
    expect((await initialize(s.url, alice)).status).toBe(429);
  });

  test("initializes sent at once never pass the limit", async () => {
    await using root = tempDir();
    await using s = await served(root, [], rules);
    const alice = await issuer.userToken("alice", s.url);
    const statuses = await Promise.all(Array.from({ length: 6 }, async () => (await initialize(s.url, alice)).status));
    expect(statuses.toSorted()).toEqual([200, 200, 429, 429, 429, 429]);
  });

  test("without concurrent_sessions a caller is bounded only by the server's session table", async () => {
    await using root = tempDir();
    await using s = await served(root, [], { callers: [{ name: "everyone" }] });
    const alice = await issuer.userToken("alice", s.url);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await initialize(s.url, alice)).status);
    expect(statuses).toEqual([200, 200, 200, 200]);
  });

  test("concurrent_sessions must be a whole number above 0 (exit 5, where)", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const config = join(root.path, "toolgate.json");
    writeFileSync(
      config,
      JSON.stringify({
        workspace: s.ws,
        serve: { oauth: { issuer: issuer.issuer }, callers: [{ concurrent_sessions: 0 }] },
      }),
    );
    const r = await run(["serve", "--http", "127.0.0.1:0", "--config", config], { cwd: s.ws, env: { HOME: s.home } });
    expect([r.code, r.stderr]).toEqual([5, expect.stringContaining("concurrent_sessions")]);
  });
});

describe("an 'always' answer is the caller's own", () => {
  /** A client that answers every approval with `approve` and keeps what it was asked. */
  const answering =
    (approve: "once" | "always", asked: ElicitRequest[]) =>
    (r: ElicitRequest): ElicitResult => (asked.push(r), { action: "accept", content: { approve } });
  const READ = { name: "file_read", arguments: { path: "a.txt" } };

  test("alice answers always: her next session is not asked; bob is asked; neither the user nor bob gets alice's", async () => {
    await using root = tempDir();
    // No rule: every caller gets the serve line, where file_read needs approval.
    await using s = await served(root, [], {});
    const [alice, bob] = [await issuer.userToken("alice", s.url), await issuer.userToken("bob", s.url)];
    const askedA: ElicitRequest[] = [];
    {
      await using a = await connect(s.url, { token: alice, elicit: answering("always", askedA) });
      expect(textJson(await a.callTool(READ))).toMatchObject({ content: "1\talpha" });
      expect(askedA).toHaveLength(1);
      expect(askedA[0]!.params.message).toContain("toolgate: file_read needs approval.");
    }
    {
      // A new session of alice's (and a new token): remembered, not asked.
      await using a = await connect(s.url, {
        token: await issuer.userToken("alice", s.url),
        elicit: answering("once", askedA),
      });
      expect(textJson(await a.callTool(READ))).toMatchObject({ content: "1\talpha" });
      expect(askedA).toHaveLength(1);
    }
    // Bob, who cannot be asked, is not approved by alice's answer.
    {
      await using b = await connect(s.url, { token: bob });
      const r = await b.callTool(READ);
      expect([r.isError, textJson(r).error_code]).toEqual([true, "approval.required"]);
    }
    // Bob who can be asked is asked, each time he answers once.
    const askedB: ElicitRequest[] = [];
    {
      await using b = await connect(s.url, { token: bob, elicit: answering("once", askedB) });
      expect(textJson(await b.callTool(READ))).toMatchObject({ content: "1\talpha" });
      expect(textJson(await b.callTool(READ))).toMatchObject({ content: "1\talpha" });
      expect(askedB).toHaveLength(2);
    }
    expect(askedA).toHaveLength(1);
    // The user's own call in this workspace is not approved by a served caller's answer.
    const own = await run(["call", "file_read", '{"path":"a.txt"}', "--allow-read"], { cwd: s.ws, env: s.env });
    expect([own.code, JSON.parse(own.stdout).error_code]).toEqual([4, "approval.required"]);
    // toolgate approvals names the caller: as JSON, and as a column on a terminal.
    const digest = JSON.parse((await run(["tools", "file_read", "--json"], { cwd: s.ws })).stdout).digest;
    const listed = (await run(["approvals", "list"], { cwd: s.ws, env: s.env })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(listed.map(({ granted_ms: _, ...r }) => r)).toEqual([
      { workspace: s.ws, tool: "file_read", digest, caller_sub: "alice", caller_client: "team-app", state: "current" },
    ]);
    const t = await onTerminal(["approvals", "list"], 120, s.ws, s.env);
    expect(t.lines[0]).toMatch(/^TOOL +CALLER +DIGEST +GRANTED +STATE$/);
    expect(t.lines[1]).toMatch(/^file_read +alice via team-app +[0-9a-f]{12} /);
  });

  test("the same answer survives a restart of serve, and a revoke forgets it: alice is asked again", async () => {
    await using root = tempDir();
    const asked: ElicitRequest[] = [];
    let ws = "";
    let env: Record<string, string> = {};
    {
      await using s = await served(root, [], {});
      ({ ws, env } = s);
      await using a = await connect(s.url, {
        token: await issuer.userToken("alice", s.url),
        elicit: answering("always", asked),
      });
      expect(textJson(await a.callTool(READ))).toMatchObject({ content: "1\talpha" });
    }
    expect(asked).toHaveLength(1);
    const again = async () => {
      const h = await serveHttp(
        ["--oauth-issuer", issuer.issuer, "--config", join(root.path, "cfg", "toolgate.json"), "--allow-read"],
        { cwd: ws, home: env.HOME! },
      );
      try {
        await using a = await connect(h.url, {
          token: await issuer.userToken("alice", h.url),
          elicit: answering("once", asked),
        });
        expect(textJson(await a.callTool(READ))).toMatchObject({ content: "1\talpha" });
      } finally {
        await h.stop();
      }
    };
    await again();
    expect(asked).toHaveLength(1);
    const revoked = await run(["approvals", "revoke", "file_read"], { cwd: ws, env });
    expect(JSON.parse(revoked.stdout).revoked).toEqual([
      {
        tool: "file_read",
        digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        caller_sub: "alice",
        caller_client: "team-app",
      },
    ]);
    await again();
    expect(asked).toHaveLength(2);
  });
});
