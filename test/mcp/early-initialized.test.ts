// EarlyInitialized (src/mcp/transport.ts): a stdio connect's notifications/initialized goes out as
// the server's initialize result arrives, before the SDK has parsed it, and the SDK's own is not sent
// again; an error answer, or a result the SDK would not take at its core, gets nothing from it.
import { describe, expect, test } from "bun:test";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import { EarlyInitialized } from "../../src/mcp/transport.ts";

/** A transport that records what is sent on it, and delivers what the test says the server answered. */
function fake(events: string[]) {
  const t: Transport & { answer(m: unknown): void } = {
    async start() {},
    async send(m: JSONRPCMessage) {
      events.push(`wire ${(m as { method?: string }).method ?? "answer"}`);
    },
    async close() {},
    answer(m: unknown) {
      t.onmessage?.(m as JSONRPCMessage);
    },
  };
  return t;
}

const init = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: "2024-11-05", capabilities: {}, clientInfo: { name: "t", version: "1" } } } as JSONRPCMessage;
const result = (r: Record<string, unknown>) => ({ jsonrpc: "2.0", id: 0, result: { protocolVersion: "2024-11-05", capabilities: {}, serverInfo: { name: "s", version: "1" }, ...r } });

function wired() {
  const events: string[] = [];
  const inner = fake(events);
  const early = new EarlyInitialized(inner, SUPPORTED_PROTOCOL_VERSIONS);
  early.onmessage = (m) => events.push(`handed on ${"result" in m ? "result" : "error" in m ? "error" : "other"}`);
  return { events, inner, early };
}

describe("EarlyInitialized", () => {
  test("the notification goes out before the initialize result is handed on, and the SDK's own is not sent again", async () => {
    const { events, inner, early } = wired();
    await early.send(init);
    inner.answer(result({ instructions: "hi" }));
    expect(events).toEqual(["wire initialize", "wire notifications/initialized", "handed on result"]);
    await early.send({ jsonrpc: "2.0", method: "notifications/initialized" } as JSONRPCMessage); // the SDK's, once it has parsed
    await early.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} } as JSONRPCMessage);
    expect(events).toEqual(["wire initialize", "wire notifications/initialized", "handed on result", "wire tools/list"]);
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
});
