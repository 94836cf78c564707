// serve's fast path for tools/call behind the SDK's Transport seam (src/serve/dispatch.ts): what it
// takes as a plain request or call must be exactly what the SDK itself accepts, every other message
// must still reach the SDK's own path, and a plain call must be answered exactly as the SDK answers
// it: the same messages on the wire (related to the same request), the same extra for the handler,
// cancellation and a closed connection alike. These fail on an SDK that changes any of that.
import { describe, expect, test } from "bun:test";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import * as types from "@modelcontextprotocol/sdk/types.js";
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  isJSONRPCRequest,
  McpError,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { fastCalls, isPlainCall, isPlainRequest, type CallExtra } from "../../src/serve/dispatch.ts";

const ids: unknown[] = [1, 0, -3, "a", "", 1.5, null, true, {}, [], undefined, Number.NaN, 2 ** 53, 1e20, -(2 ** 53)];
const metas: unknown[] = [
  undefined,
  {},
  { progressToken: 1 },
  { progressToken: "t" },
  { progressToken: 1.5 },
  { progressToken: 2 ** 53 },
  { progressToken: 1e20 },
  { progressToken: {} },
  { progressToken: null },
  { traceparent: "00-x" },
  { "io.modelcontextprotocol/related-task": { taskId: "t" } },
  { "io.modelcontextprotocol/related-task": 5 },
  [],
  null,
  "m",
];
const paramsList: unknown[] = [
  undefined,
  {},
  [],
  null,
  "p",
  3,
  ...metas.map((m) => ({ _meta: m })),
  { name: "x", arguments: {} },
];

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
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "a", _meta: { progressToken: 9, traceparent: "00-1-2-01" } },
      },
    ])
      expect(isPlainRequest(m)).toBe(true);
  });

  test("what the SDK refuses or treats otherwise is left to it", () => {
    for (const m of [
      { jsonrpc: "2.0", id: 1, method: "tools/call", extra: true }, // an unknown key: the SDK's strict schema refuses it
      { jsonrpc: "2.0", id: 1.5, method: "x" }, // not an integer id
      { jsonrpc: "2.0", id: 2 ** 53, method: "x" }, // not a safe integer (the SDK refuses it; a reply could not carry it)
      { jsonrpc: "2.0", id: 2 ** 53 + 2, method: "tools/call", params: { name: "plan" } }, // a call whose id is past the safe integers
      { jsonrpc: "2.0", id: 1, result: {} }, // a response
      { jsonrpc: "2.0", method: "notifications/initialized" }, // a notification
      {
        jsonrpc: "2.0",
        id: 1,
        method: "x",
        params: { _meta: { "io.modelcontextprotocol/related-task": { taskId: "t" } } },
      }, // a task's
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
    expect(
      Object.keys((CallToolRequestSchema.parse(proto) as { params: { arguments: object } }).params.arguments),
    ).toEqual(["a"]);
  });
});

/** One server, its tools/call handler set through the SDK and (when `fast`) the fast path on its transport, driven by raw messages. */
async function wire(fast: boolean) {
  const server = new Server({ name: "s", version: "1" }, { capabilities: { tools: {} } });
  const extras: string[][] = [];
  const raw: boolean[] = [];
  const waiting = new Map<string, { entered: () => void; aborted: Promise<void> }>();
  const entered = new Map<string, Promise<void>>();
  const handler = async (request: types.CallToolRequest, extra: CallExtra) => {
    extras.push(Object.keys(extra).sort());
    raw.push("jsonrpc" in request);
    const { name } = request.params;
    if (name === "ok") {
      if (extra._meta?.progressToken !== undefined)
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: extra._meta.progressToken, progress: 1, total: 2 },
        });
      return {
        content: [{ type: "text", text: `ok ${JSON.stringify(request.params.arguments ?? null)}` }],
        structuredContent: { a: 1 },
        _meta: { toolgate: { status: "success" } },
        extra: "kept?",
      };
    }
    if (name === "ask") {
      const r = await extra.sendRequest(
        { method: "elicitation/create", params: { message: "m", requestedSchema: { type: "object", properties: {} } } },
        ElicitResultSchema,
      );
      return { content: [{ type: "text", text: r.action }] };
    }
    if (name === "auth")
      return {
        content: [{ type: "text", text: JSON.stringify([extra.authInfo, extra.requestId, extra.sessionId ?? null]) }],
      };
    if (name === "mcp-error") throw new McpError(-32602, "bad arguments", { field: "x" });
    if (name === "throw") throw new Error("boom");
    if (name === "wait") {
      const w = waiting.get(String(extra.requestId))!;
      w.entered();
      await new Promise<void>((res) =>
        extra.signal.aborted ? res() : extra.signal.addEventListener("abort", () => res()),
      );
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: "late", progress: 1 },
      });
      return { content: [{ type: "text", text: "too late" }] };
    }
    return { content: [], isError: true };
  };
  server.setRequestHandler(CallToolRequestSchema, handler);
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  const sent: [JSONRPCMessage, unknown][] = [];
  const send = serverSide.send.bind(serverSide);
  serverSide.send = (m, o) => {
    sent.push([m, o?.relatedRequestId]);
    return send(m, o);
  };
  const errors: string[] = [];
  server.onerror = (e) => void errors.push(e.message);
  await server.connect(serverSide);
  if (fast) fastCalls(server, serverSide, handler, types);
  const answers = new Map<unknown, (m: JSONRPCMessage) => void>();
  client.onmessage = (m) => {
    const msg = m as { id?: unknown; method?: string };
    if (msg.method === "elicitation/create")
      void client.send({ jsonrpc: "2.0", id: msg.id as number, result: { action: "decline" } });
    else if (msg.id !== undefined) answers.get(msg.id)?.(m);
  };
  await client.start();
  const request = (id: number, method: string, params?: Record<string, unknown>, authInfo?: object) => {
    const answered = new Promise<JSONRPCMessage>((res) => answers.set(id, res));
    void client.send(
      { jsonrpc: "2.0", id, method, ...(params ? { params } : {}) },
      authInfo ? { authInfo: authInfo as never } : undefined,
    );
    return answered;
  };
  /** A call of "wait" started: resolves once its handler runs; `aborted` once its signal fired and it returned. */
  const startWait = (id: number) => {
    let resolveEntered!: () => void;
    entered.set(String(id), new Promise<void>((res) => (resolveEntered = res)));
    waiting.set(String(id), { entered: () => resolveEntered(), aborted: Promise.resolve() });
    void client.send({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "wait" } });
    return entered.get(String(id))!;
  };
  await request(1, "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: { elicitation: {} },
    clientInfo: { name: "c", version: "1" },
  });
  await client.send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await request(2, "tools/call", { name: "ok", arguments: { x: 1 }, _meta: { progressToken: 7 } });
  await request(3, "tools/call", { name: "ok" });
  await request(4, "tools/call", { name: "ask", arguments: {} });
  await request(5, "tools/call", { name: "auth" }, { token: "t", clientId: "c", scopes: [] });
  await request(6, "tools/call", { name: "mcp-error" });
  await request(7, "tools/call", { name: "throw" });
  await request(8, "tools/call", { name: 5 }); // not plain: the SDK's own refusal either way
  // Cancelled: its handler sees the abort, and nothing of it reaches the client (a ping after it is the barrier).
  await startWait(9);
  await client.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9, reason: "user" } });
  await request(10, "ping");
  // The connection closes while a call runs: it is aborted, nothing more is sent.
  await startWait(11);
  await client.close();
  // The handler ran to its end (its late notification dropped) before the next turn of the loop settles.
  for (let i = 0; i < 10; i++) await new Promise((res) => setImmediate(res));
  return { sent, extras, raw, errors };
}

describe("a plain call through the fast path, on the pinned SDK", () => {
  test("the same messages on the wire as through the SDK, related to the same requests; the same extra; cancellation and close alike", async () => {
    const sdk = await wire(false);
    const fast = await wire(true);
    expect(fast.sent).toEqual(sdk.sent);
    expect(fast.extras).toEqual(sdk.extras);
    expect(fast.errors).toEqual(sdk.errors);
    // Not vacuous: the plain calls took the fast path (the handler got the message itself), the invalid one the SDK's.
    expect(sdk.raw.every((r) => !r)).toBe(true);
    expect(fast.raw).toEqual([true, true, true, true, true, true, true, true]);
    const byId = new Map(sdk.sent.map(([m, related]) => [(m as { id?: unknown }).id, [m, related]]));
    expect(byId.get(2)).toEqual([
      {
        jsonrpc: "2.0",
        id: 2,
        result: {
          content: [{ type: "text", text: 'ok {"x":1}' }],
          structuredContent: { a: 1 },
          _meta: { toolgate: { status: "success" } },
          extra: "kept?",
        },
      },
      undefined,
    ]);
    expect(sdk.sent.find(([m]) => (m as { method?: string }).method === "notifications/progress")).toEqual([
      { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 7, progress: 1, total: 2 } },
      2,
    ]);
    expect(sdk.sent.find(([m]) => (m as { method?: string }).method === "elicitation/create")?.[1]).toBe(4);
    expect((byId.get(4)![0] as { result: unknown }).result).toEqual({ content: [{ type: "text", text: "decline" }] });
    expect((byId.get(5)![0] as { result: { content: { text: string }[] } }).result.content[0]!.text).toBe(
      JSON.stringify([{ token: "t", clientId: "c", scopes: [] }, 5, null]),
    );
    expect(byId.get(6)![0]).toEqual({
      jsonrpc: "2.0",
      id: 6,
      error: { code: -32602, message: "MCP error -32602: bad arguments", data: { field: "x" } },
    });
    expect(byId.get(7)![0]).toEqual({ jsonrpc: "2.0", id: 7, error: { code: -32603, message: "boom" } });
    expect((byId.get(8)![0] as { error: { code: number; message: string } }).error).toMatchObject({
      code: -32603,
      message: expect.stringMatching(/name/),
    });
    expect([byId.has(9), byId.has(10), byId.has(11)]).toEqual([false, true, false]);
  });

  test("it needs a connected server", () => {
    const [, serverSide] = InMemoryTransport.createLinkedPair();
    expect(() => fastCalls(new Server({ name: "s", version: "1" }), serverSide, async () => ({}), types)).toThrow(
      /not connected/,
    );
  });
});
