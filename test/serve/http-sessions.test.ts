// src/serve/http.ts and sessions.ts in-process, with a stand-in hub (an SDK Server per session, one
// tool that waits until the test lets it go) and an injected clock: the table never locks a client
// out (idle sessions end, at the cap the least recently used idle one makes room), a session with a
// request in flight is never ended for another, and SSE events carry ids and retry for a replay.
import { describe, expect, test } from "bun:test";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { listenHttp, MAX_SESSIONS, SESSION_IDLE_MS, type HttpServer } from "../../src/serve/http.ts";
import type { Hub } from "../../src/serve/hub.ts";
import { RETRY_MS } from "../../src/serve/sessions.ts";
import { initializeBody, POST_HEADERS } from "./http-client.ts";
import { WAIT_MS, waitFor } from "../support/wait.ts";

/** The calls of `wait` running now: each ends when its resolver is called. */
const waiting: (() => void)[] = [];
const hub = {
  connect: async (t: Transport) => {
    const s = new Server({ name: "stand-in", version: "0" }, { capabilities: { tools: {} } });
    s.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: "wait", inputSchema: { type: "object" } }] }));
    s.setRequestHandler(CallToolRequestSchema, async () => {
      await new Promise<void>((r) => waiting.push(r));
      return { content: [{ type: "text", text: "done" }] };
    });
    await s.connect(t);
  },
} as unknown as Hub;

/** Starts a `wait` call in session `id` and resolves once it runs (bounded), with its response. */
async function busy(url: string, id: string, n: number): Promise<{ response: Promise<Response> }> {
  const before = waiting.length;
  const response = rpc(
    url,
    id,
    { jsonrpc: "2.0", id: n, method: "tools/call", params: { name: "wait", arguments: {} } },
    "2025-06-18",
  );
  await waitFor("the call to start", () => waiting.length !== before, WAIT_MS, 5);
  return { response };
}

async function listen(now: () => number, log: string[] = []): Promise<HttpServer & AsyncDisposable> {
  const r = await listenHttp({
    hub,
    options: { host: "127.0.0.1", port: 0, loopback: true, token: "tok", tokenSource: "file" },
    log: (l) => void log.push(l),
    now,
    interfaces: () => [],
  });
  if (!r.ok) throw new Error(r.refusal.message);
  return Object.assign(r.value, { [Symbol.asyncDispose]: () => r.value.stop() });
}

const AUTH = { Authorization: "Bearer tok" };
const init = async (url: string, headers: Record<string, string> = {}, body = initializeBody) => {
  const r = await fetch(url, { method: "POST", headers: { ...POST_HEADERS, ...AUTH, ...headers }, body });
  await r.body?.cancel();
  return { status: r.status, id: r.headers.get("mcp-session-id"), retryAfter: r.headers.get("retry-after") };
};
/** A request of an open session: its status (404 once the session has ended). */
const ping = async (url: string, id: string) => {
  const r = await fetch(url, {
    method: "POST",
    headers: { ...POST_HEADERS, ...AUTH, "Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
  });
  await r.body?.cancel();
  return r.status;
};
const rpc = (url: string, id: string, body: object, version = "2025-11-25") =>
  fetch(url, {
    method: "POST",
    headers: { ...POST_HEADERS, ...AUTH, "Mcp-Session-Id": id, "Mcp-Protocol-Version": version },
    body: JSON.stringify(body),
  });

describe("the session table never locks out", () => {
  test("at the cap the least recently used idle session ends for a new one; its client gets 404 and initializes again", async () => {
    let clock = 0;
    const log: string[] = [];
    await using server = await listen(() => clock, log);
    const ids: string[] = [];
    for (let i = 0; i < MAX_SESSIONS; i++) {
      clock = i;
      const r = await init(server.url);
      expect(r.status).toBe(200);
      ids.push(r.id!);
    }
    // The first is used again: the second is now the least recently used.
    clock = 100;
    expect(await ping(server.url, ids[0]!)).toBe(200);
    clock = 101;
    expect((await init(server.url)).status).toBe(200);
    expect([await ping(server.url, ids[1]!), await ping(server.url, ids[0]!), await ping(server.url, ids[2]!)]).toEqual(
      [404, 200, 200],
    );
    expect(log).toContain(
      `an idle session was ended to make room (at most ${MAX_SESSIONS} at once); its client initializes again`,
    );
    // Its client comes back: a new session, the next least recently used makes room.
    const again = await init(server.url);
    expect(again.status).toBe(200);
    expect(await ping(server.url, ids[3]!)).toBe(404);
    expect(await ping(server.url, again.id!)).toBe(200);
  });

  test("a session idle past the idle bound ends by itself, the table not full", async () => {
    let clock = 0;
    await using server = await listen(() => clock);
    const old = await init(server.url);
    clock = SESSION_IDLE_MS / 2;
    const recent = await init(server.url);
    clock = SESSION_IDLE_MS + 1;
    expect((await init(server.url)).status).toBe(200);
    expect([await ping(server.url, old.id!), await ping(server.url, recent.id!)]).toEqual([404, 200]);
  });

  test("a session with a call in flight is never ended for another; only when all are busy is a new one 503, briefly", async () => {
    let clock = 0;
    await using server = await listen(() => clock);
    const ids: string[] = [];
    for (let i = 0; i < MAX_SESSIONS; i++) ids.push((await init(server.url)).id!);
    // The least recently used session has a call in flight: the next one makes room instead.
    const { response: first } = await busy(server.url, ids[0]!, 5);
    clock = 10;
    const added = await init(server.url);
    expect(added.status).toBe(200);
    expect([await ping(server.url, ids[0]!), await ping(server.url, ids[1]!)]).toEqual([200, 404]);
    // Every session busy: 503 with Retry-After, and none of them ended.
    const live = [ids[0]!, ...ids.slice(2), added.id!];
    const calls = [first];
    for (const [i, id] of live.slice(1).entries()) calls.push((await busy(server.url, id, 100 + i)).response);
    const refused = await init(server.url);
    expect([refused.status, refused.retryAfter]).toEqual([503, "1"]);
    for (const release of waiting.splice(0)) release();
    expect(
      (await Promise.all(calls.map(async (c) => (await c).text()))).every((t) => t.includes('"text":"done"')),
    ).toBe(true);
    // Answered, they are idle again: a new session gets room.
    expect((await init(server.url)).status).toBe(200);
  });

  test("SSE events carry ids and retry; a client that lost its stream mid-call reconnects with Last-Event-ID and gets the answer it missed", async () => {
    await using server = await listen(() => 0);
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    const { id } = await init(server.url, {}, body);
    expect((await rpc(server.url, id!, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    // A call whose stream the client drops after the first event.
    const before = waiting.length;
    const abort = new AbortController();
    const res = await fetch(server.url, {
      method: "POST",
      signal: abort.signal,
      headers: { ...POST_HEADERS, ...AUTH, "Mcp-Session-Id": id!, "Mcp-Protocol-Version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "wait", arguments: {} } }),
    });
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes("\n\n")) text += new TextDecoder().decode((await reader.read()).value);
    const priming = /^id: (\S+)\nretry: (\d+)\ndata: \n\n$/.exec(text);
    expect(priming?.[2]).toBe(String(RETRY_MS));
    abort.abort();
    await reader.cancel().catch(() => {});
    await waitFor("the call to start", () => waiting.length !== before, WAIT_MS, 5);
    for (const release of waiting.splice(0)) release();
    // The answer was sent while nobody listened; the reconnect replays it, with its own id.
    const again = await fetch(server.url, {
      headers: {
        Accept: "text/event-stream",
        ...AUTH,
        "Mcp-Session-Id": id!,
        "Mcp-Protocol-Version": "2025-11-25",
        "Last-Event-ID": priming![1]!,
      },
    });
    expect(again.status).toBe(200);
    const replay = again.body!.getReader();
    let replayed = "";
    while (!replayed.includes("\n\n")) replayed += new TextDecoder().decode((await replay.read()).value);
    await replay.cancel();
    const event = /^event: message\nid: (\S+)\ndata: (.*)\n\n$/.exec(replayed);
    expect(Number(event?.[1])).toBeGreaterThan(Number(priming![1]));
    expect(JSON.parse(event![2]!)).toEqual({
      jsonrpc: "2.0",
      id: 7,
      result: { content: [{ type: "text", text: "done" }] },
    });
  });

  test("a refused initialize (wrong Accept) leaves no session behind", async () => {
    await using server = await listen(() => 0);
    for (let i = 0; i < MAX_SESSIONS + 2; i++)
      expect((await init(server.url, { Accept: "application/json" })).status).toBe(406);
    expect((await init(server.url)).status).toBe(200);
  });

  test("after refuseNewSessions an initialize is 503; after stop the port is closed", async () => {
    const server = await listen(() => 0);
    server.refuseNewSessions();
    expect((await init(server.url)).status).toBe(503);
    await server.stop();
    await expect(fetch(server.url, { method: "POST" })).rejects.toThrow();
  });
});
