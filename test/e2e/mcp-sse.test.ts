// End to end: a legacy HTTP+SSE server (`type: "sse"`, the SDK's SSEServerTransport on a
// node:http listener, loopback port 0) is listed and called through the SDK's SSE client
// transport instead of failing on a POST to its stream URL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";

let http: HttpServer;
let port = 0;
const auth: (string | undefined)[] = [];
beforeAll(async () => {
  const { Server } = await import("@modelcontextprotocol/sdk/server/index.js");
  const { SSEServerTransport } = await import("@modelcontextprotocol/sdk/server/sse.js");
  const { CallToolRequestSchema, ListToolsRequestSchema } = await import("@modelcontextprotocol/sdk/types.js");
  const sessions = new Map<string, InstanceType<typeof SSEServerTransport>>();
  http = createServer(async (req, res) => {
    auth.push(req.headers["x-key"] as string | undefined);
    const url = new URL(req.url!, "http://x");
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/message", res);
      sessions.set(transport.sessionId, transport);
      const mcp = new Server({ name: "legacy", version: "1" }, { capabilities: { tools: {} } });
      mcp.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "shout", description: "Upper-case", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }] }));
      mcp.setRequestHandler(CallToolRequestSchema, async (r) => ({ content: [{ type: "text", text: String((r.params.arguments as { text: string }).text).toUpperCase() }] }));
      await mcp.connect(transport);
      return;
    }
    const t = sessions.get(url.searchParams.get("sessionId") ?? "");
    if (req.method === "POST" && url.pathname === "/message" && t) return void (await t.handlePostMessage(req, res));
    res.writeHead(405).end();
  });
  await new Promise<void>((ok) => http.listen(0, "127.0.0.1", ok));
  port = (http.address() as AddressInfo).port;
});
afterAll(() => http.close());

describe('type: "sse"', () => {
  test("listed and called over the legacy transport, headers on every request", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "toolgate.json"), JSON.stringify({ mcpServers: { old: { type: "sse", url: `http://127.0.0.1:${port}/sse`, headers: { "X-Key": "k-${SSE_KEY}" } } } }));
    const grant = [`--allow-net=127.0.0.1:${port}`, "--allow-env=SSE_KEY", "--approve", "all"];
    const env = { SSE_KEY: "legacy-key-1" };
    auth.length = 0;
    const r = await run(["call", "old__shout", '{"text":"quiet"}', ...grant], { cwd: dir.path, env });
    expect([r.code, json(r)]).toEqual([0, { status: "success", tool: "old__shout", payload: { content: [{ type: "text", text: "QUIET" }] } }]);
    expect(auth.length).toBeGreaterThan(1);
    expect(auth.every((k) => k === "k-legacy-key-1")).toBe(true);
  });
});
