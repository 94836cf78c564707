// serve's fast path past the SDK's zod classification (src/serve/dispatch.ts): what it takes as a
// plain request or call must be exactly what the SDK itself accepts, every other message must
// still reach the SDK's own path, and the SDK members it relies on must exist in the pinned SDK.
import { describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Protocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, CallToolResultSchema, isJSONRPCRequest, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { fastPathFor, isPlainCall, isPlainRequest } from "../../src/serve/dispatch.ts";

const ids: unknown[] = [1, 0, -3, "a", "", 1.5, null, true, {}, [], undefined, Number.NaN, 2 ** 53, 1e20, -(2 ** 53)];
const metas: unknown[] = [undefined, {}, { progressToken: 1 }, { progressToken: "t" }, { progressToken: 1.5 }, { progressToken: 2 ** 53 }, { progressToken: 1e20 }, { progressToken: {} }, { progressToken: null }, { traceparent: "00-x" }, { "io.modelcontextprotocol/related-task": { taskId: "t" } }, { "io.modelcontextprotocol/related-task": 5 }, [], null, "m"];
const paramsList: unknown[] = [undefined, {}, [], null, "p", 3, ...metas.map((m) => ({ _meta: m })), { name: "x", arguments: {} }];

/** Every combination of the fields a request is told by, and some it is not. */
function* messages(): Generator<unknown> {
  for (const jsonrpc of ["2.0", "1.0", 2, undefined])
    for (const id of ids)
      for (const method of ["tools/call", "", 7, undefined])
        for (const params of paramsList) {
          const m: Record<string, unknown> = {};
          if (jsonrpc !== undefined) m.jsonrpc = jsonrpc;
          if (id !== undefined) m.id = id;
          if (method !== undefined) m.method = method;
          if (params !== undefined) m.params = params;
          yield m;
          yield { ...m, extra: 1 };
          yield { ...m, result: {} };
        }
  yield null;
  yield [];
  yield "text";
}

describe("the fast path's classification", () => {
  test("a message taken as a plain request is one the SDK takes as a request; the common shapes are taken", () => {
    let plain = 0;
    let total = 0;
    for (const m of messages()) {
      total++;
      if (!isPlainRequest(m)) continue;
      plain++;
      expect({ m, sdk: isJSONRPCRequest(m) }).toEqual({ m, sdk: true });
    }
    expect(total).toBeGreaterThan(3000);
    // Not vacuous: the shapes clients send are taken (ids, methods, params, progress tokens, other _meta keys).
    expect(plain).toBe(80); // 5 valid ids x 2 methods x 8 params shapes
    for (const m of [
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "plan", arguments: {} } },
      { jsonrpc: "2.0", id: "x", method: "ping" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "a", _meta: { progressToken: 9, traceparent: "00-1-2-01" } } },
    ])
      expect(isPlainRequest(m)).toBe(true);
  });

  test("what the SDK refuses or treats otherwise is left to it", () => {
    for (const m of [
      { jsonrpc: "2.0", id: 1, method: "tools/call", extra: true }, // an unknown key: the SDK's strict schema refuses it
      { jsonrpc: "2.0", id: 1.5, method: "x" }, // not an integer id
      { jsonrpc: "2.0", id: 2 ** 53, method: "x" }, // not a safe integer (the SDK refuses it; a reply could not carry it)
      { jsonrpc: "2.0", id: 9007199254740993, method: "tools/call", params: { name: "plan" } },
      { jsonrpc: "2.0", id: 1, result: {} }, // a response
      { jsonrpc: "2.0", method: "notifications/initialized" }, // a notification
      { jsonrpc: "2.0", id: 1, method: "x", params: { _meta: { "io.modelcontextprotocol/related-task": { taskId: "t" } } } }, // a task's
      { jsonrpc: "2.0", id: 1, method: "x", params: { _meta: { progressToken: { a: 1 } } } },
    ])
      expect(isPlainRequest(m)).toBe(false);
  });

  test("a call taken as plain is one CallToolRequestSchema accepts, without a task", () => {
    const calls: unknown[] = [];
    for (const name of ["plan", "", 3, undefined])
      for (const args of [undefined, {}, { a: 1 }, [], null, "s", JSON.parse('{"__proto__":{"x":1},"a":1}')])
        for (const task of [undefined, { ttl: 1 }]) {
          const params: Record<string, unknown> = {};
          if (name !== undefined) params.name = name;
          if (args !== undefined) params.arguments = args;
          if (task !== undefined) params.task = task;
          calls.push({ method: "tools/call", params });
        }
    let plain = 0;
    for (const c of calls) {
      if (!isPlainCall(c)) continue;
      plain++;
      expect(CallToolRequestSchema.safeParse(c).success).toBe(true);
      expect("task" in (c as { params: object }).params).toBe(false);
    }
    expect(plain).toBe(6); // a string name ("plan" or ""), arguments absent, {} or {a:1}, no task
    // Arguments with an own __proto__ key take the SDK's path: its parse hands the handler a copy without it.
    const proto = { method: "tools/call", params: { name: "a", arguments: JSON.parse('{"__proto__":{"x":1},"a":1}') } };
    expect(isPlainCall(proto)).toBe(false);
    expect(Object.keys((CallToolRequestSchema.parse(proto) as { params: { arguments: object } }).params.arguments)).toEqual(["a"]);
  });
});

describe("fastPathFor on the pinned SDK", () => {
  test("it takes hold, a plain call reaches the handler unparsed, and everything else still works through the SDK", async () => {
    const server = new Server({ name: "s", version: "1" }, { capabilities: { tools: {} } });
    const seen: unknown[] = [];
    const onCall = async (request: unknown) => {
      seen.push(request);
      return { content: [{ type: "text", text: "ok" }] };
    };
    (Protocol.prototype.setRequestHandler as unknown as typeof server.setRequestHandler).call(server, CallToolRequestSchema, onCall as never);
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: "t", inputSchema: { type: "object" } }] }));
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(b);
    expect(fastPathFor(server, b, onCall)).toBe(true);
    const client = new Client({ name: "c", version: "1" });
    await client.connect(a);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["t"]);
    const r = await client.callTool({ name: "t", arguments: { x: 1 } });
    expect(r.content).toEqual([{ type: "text", text: "ok" }]);
    // The handler got the request object as sent (no parsed copy): the very params the client wrote.
    expect(seen).toHaveLength(1);
    expect((seen[0] as { params: unknown }).params).toEqual({ name: "t", arguments: { x: 1 } });
    // An invalid call still gets the SDK's own refusal (InvalidParams from its schema parse).
    await expect(client.request({ method: "tools/call", params: { name: 5 } } as never, CallToolResultSchema)).rejects.toThrow(/Invalid/);
    expect(seen).toHaveLength(1);
    await client.close();
  });

  test("an SDK without the members changes nothing", () => {
    const fake = {} as Server;
    const transport = { onmessage: () => {} } as unknown as Parameters<typeof fastPathFor>[1];
    const before = transport.onmessage;
    expect(fastPathFor(fake, transport, async () => ({}))).toBe(false);
    expect(transport.onmessage).toBe(before);
  });
});
