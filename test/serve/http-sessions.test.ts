// src/serve/http.ts in-process, with a stand-in hub (an SDK Server per session, no tools) and an
// injected clock: the session table's bound, and idle sessions reclaimed when it is full.
import { describe, expect, test } from "bun:test";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { listenHttp, MAX_SESSIONS, SESSION_IDLE_MS, type HttpServer } from "../../src/serve/http.ts";
import type { Hub } from "../../src/serve/hub.ts";
import { initializeBody, POST_HEADERS } from "./http-client.ts";

const hub = { connect: (t: Transport) => new Server({ name: "stand-in", version: "0" }, { capabilities: {} }).connect(t) } as unknown as Hub;

async function listen(now: () => number): Promise<HttpServer & AsyncDisposable> {
  const r = await listenHttp({ hub, options: { host: "127.0.0.1", port: 0, loopback: true, token: "tok", tokenSource: "file" }, log: () => {}, now, interfaces: () => [] });
  if (!r.ok) throw new Error(r.refusal.message);
  return Object.assign(r.value, { [Symbol.asyncDispose]: () => r.value.stop() });
}

const init = async (url: string, headers: Record<string, string> = {}) => {
  const r = await fetch(url, { method: "POST", headers: { ...POST_HEADERS, Authorization: "Bearer tok", ...headers }, body: initializeBody });
  await r.body?.cancel();
  return { status: r.status, id: r.headers.get("mcp-session-id") };
};

describe("the session table", () => {
  test("full: 503 while every session is recent; a session idle past the limit is closed to make room", async () => {
    let clock = 0;
    await using server = await listen(() => clock);
    const first = await init(server.url);
    clock = 1;
    for (let i = 1; i < MAX_SESSIONS; i++) expect((await init(server.url)).status).toBe(200);
    clock = SESSION_IDLE_MS;
    expect((await init(server.url)).status).toBe(503);
    // Only the first session has been silent for longer than the limit now.
    clock = SESSION_IDLE_MS + 0.5;
    expect((await init(server.url)).status).toBe(200);
    const gone = await fetch(server.url, { method: "DELETE", headers: { Authorization: "Bearer tok", "Mcp-Session-Id": first.id! } });
    expect(gone.status).toBe(404);
    expect((await init(server.url)).status).toBe(503);
  });

  test("a refused initialize (wrong Accept) leaves no session behind", async () => {
    await using server = await listen(() => 0);
    for (let i = 0; i < MAX_SESSIONS + 2; i++) expect((await init(server.url, { Accept: "application/json" })).status).toBe(406);
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
