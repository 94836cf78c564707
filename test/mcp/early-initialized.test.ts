// EarlyInitialized (src/mcp/handshake.ts): a stdio connect's notifications/initialized goes out as
// the server's initialize result arrives, before the SDK has parsed it, and the SDK's own is not sent
// again; an error answer, or a result the SDK would not take at its core, gets nothing from it.
import { describe, expect, test } from "bun:test";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { EarlyInitialized } from "../../src/mcp/handshake.ts";

/** A transport that records what is sent on it, and delivers what the test says the server answered. */
function fake(events: string[], sent: JSONRPCMessage[] = []) {
  const t: Transport & { answer(m: unknown): void } = {
    async start() {},
    async send(m: JSONRPCMessage) {
      sent.push(m);
      events.push(`wire ${(m as { method?: string }).method ?? "answer"}`);
    },
    async close() {},
    answer(m: unknown) {
      t.onmessage?.(m as JSONRPCMessage);
    },
  };
  return t;
}

const init = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "t", version: "1" } },
} as JSONRPCMessage;
const result = (r: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id: 0,
  result: { protocolVersion: "2024-11-05", capabilities: {}, serverInfo: { name: "s", version: "1" }, ...r },
});

function wired(listEarly = false) {
  const events: string[] = [];
  const sent: JSONRPCMessage[] = [];
  const handed: JSONRPCMessage[] = [];
  const inner = fake(events, sent);
  const early = new EarlyInitialized(inner, SUPPORTED_PROTOCOL_VERSIONS, listEarly);
  early.onmessage = (m) => {
    handed.push(m);
    events.push(`handed on ${"result" in m ? "result" : "error" in m ? "error" : "other"}`);
  };
  return { events, inner, early, sent, handed };
}

const sdkList = (id: number, params: Record<string, unknown> = {}) =>
  ({ jsonrpc: "2.0", id, method: "tools/list", params }) as JSONRPCMessage;
const tick = () => new Promise((r) => setTimeout(r, 0));

describe("EarlyInitialized", () => {
  test("the notification goes out before the initialize result is handed on, and the SDK's own is not sent again", async () => {
    const { events, inner, early } = wired();
    await early.send(init);
    inner.answer(result({ instructions: "hi" }));
    expect(events).toEqual(["wire initialize", "wire notifications/initialized", "handed on result"]);
    await early.send({ jsonrpc: "2.0", method: "notifications/initialized" } as JSONRPCMessage); // the SDK's, once it has parsed
    await early.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} } as JSONRPCMessage);
    expect(events).toEqual([
      "wire initialize",
      "wire notifications/initialized",
      "handed on result",
      "wire tools/list",
    ]);
  });

  test.each([
    ["an error answer", { jsonrpc: "2.0", id: 0, error: { code: -32603, message: "no" } }],
    ["a protocol version the SDK does not support", result({ protocolVersion: "1999-01-01" })],
    ["no serverInfo", { jsonrpc: "2.0", id: 0, result: { protocolVersion: "2024-11-05", capabilities: {} } }],
    ["capabilities not an object", result({ capabilities: [] })],
    ["a capability not an object", result({ capabilities: { tools: "x" } })],
    ["a capability flag not a boolean", result({ capabilities: { resources: { subscribe: "yes" } } })],
    ["instructions not a string", result({ instructions: 1 })],
    ["a result to another request", { ...result({}), id: 7 }],
  ])("%s: nothing is sent from here; the SDK's own notification, if it sends one, goes out", async (_name, answer) => {
    const { events, inner, early } = wired();
    await early.send(init);
    inner.answer(answer);
    expect(events.filter((e) => e.startsWith("wire"))).toEqual(["wire initialize"]);
    await early.send({ jsonrpc: "2.0", method: "notifications/initialized" } as JSONRPCMessage);
    expect(events.filter((e) => e.startsWith("wire"))).toEqual(["wire initialize", "wire notifications/initialized"]);
  });

  test("only the answer to initialize: a later result with the same shape sends nothing", async () => {
    const { events, inner, early } = wired();
    await early.send(init);
    inner.answer(result({}));
    inner.answer(result({}));
    expect(events.filter((e) => e === "wire notifications/initialized")).toHaveLength(1);
  });

  describe("listEarly: the first tools/list goes out behind the notification", () => {
    test("under an id of its own; the SDK's first tools/list is not sent but handed that answer under its id, whichever comes first", async () => {
      for (const answerFirst of [true, false]) {
        const { events, inner, early, sent, handed } = wired(true);
        await early.send(init);
        inner.answer(result({}));
        expect(events).toEqual([
          "wire initialize",
          "wire notifications/initialized",
          "wire tools/list",
          "handed on result",
        ]);
        const earlyId = (sent[2] as { id: unknown }).id;
        expect(earlyId).toBe(2 ** 31 - 1); // an integer a 32-bit server reads, and one the SDK (numbering its own from 0) never reaches
        const tools = { tools: [{ name: "echo", inputSchema: { type: "object" } }] };
        if (answerFirst) inner.answer({ jsonrpc: "2.0", id: earlyId, result: tools });
        expect(handed).toHaveLength(1); // nothing handed on before the SDK asked
        await early.send(sdkList(1));
        if (!answerFirst) inner.answer({ jsonrpc: "2.0", id: earlyId, result: tools });
        await tick();
        expect(handed.slice(1)).toEqual([{ jsonrpc: "2.0", id: 1, result: tools } as JSONRPCMessage]);
        expect(sent.filter((m) => (m as { method?: string }).method === "tools/list")).toHaveLength(1);
        // A later page, and a later listing, are the SDK's own requests.
        await early.send(sdkList(2, { cursor: "2" }));
        await early.send(sdkList(3));
        expect(sent.slice(3).map((m) => (m as { id?: unknown }).id)).toEqual([2, 3]);
      }
    });

    test("an error answer is handed on as the SDK's request's error", async () => {
      const { inner, early, sent, handed } = wired(true);
      await early.send(init);
      inner.answer(result({}));
      await early.send(sdkList(1));
      expect((sent[2] as { id: unknown }).id).toBe(2 ** 31 - 1);
      const error = { code: -32603, message: "the list is broken" };
      inner.answer({ jsonrpc: "2.0", id: (sent[2] as { id: unknown }).id, error });
      expect(handed.at(-1)).toEqual({ jsonrpc: "2.0", id: 1, error } as JSONRPCMessage);
    });

    test("the SDK's cancellation of its request goes out for the early one", async () => {
      const { early, inner, sent } = wired(true);
      await early.send(init);
      inner.answer(result({}));
      await early.send(sdkList(1));
      expect((sent[2] as { id: unknown }).id).toBe(2 ** 31 - 1);
      await early.send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 1, reason: "timed out" },
      } as JSONRPCMessage);
      expect(sent.at(-1)).toEqual({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: (sent[2] as { id: unknown }).id, reason: "timed out" },
      } as JSONRPCMessage);
    });

    test("no early list for an initialize result the SDK would not take, nor without listEarly", async () => {
      for (const [listEarly, answer] of [
        [true, result({ protocolVersion: "1999-01-01" })],
        [false, result({})],
      ] as const) {
        const { early, inner, sent } = wired(listEarly);
        await early.send(init);
        inner.answer(answer);
        await early.send(sdkList(1));
        expect(
          sent.filter((m) => (m as { method?: string }).method === "tools/list").map((m) => (m as { id?: unknown }).id),
        ).toEqual([1]);
      }
    });

    test("a failed write of the early list fails the SDK's request with it, at once", async () => {
      const events: string[] = [];
      const inner = fake(events);
      const send = inner.send.bind(inner);
      inner.send = async (m: JSONRPCMessage) => {
        if ((m as { method?: string }).method === "tools/list") throw new Error("EPIPE: broken pipe, write");
        return send(m);
      };
      const early = new EarlyInitialized(inner, SUPPORTED_PROTOCOL_VERSIONS, true);
      early.onmessage = () => {};
      await early.send(init);
      inner.answer(result({}));
      await expect(early.send(sdkList(1))).rejects.toThrow("EPIPE");
    });
  });
});
