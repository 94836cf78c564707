// An answer over a pipe whose JSON-RPC envelope the SDK would refuse (and drop, leaving the call to
// wait out its deadline) is handed on at once as an error toolgate marks malformed. The check may
// only flag what the SDK certainly refuses: on thousands of generated answers, whatever it flags,
// the SDK's own envelope schema refuses too, and every answer to a request it refuses is flagged.
import { describe, expect, test } from "bun:test";
import * as types from "@modelcontextprotocol/sdk/types.js";
import { MALFORMED_MARK, PipeTransport, refusedAnswer } from "../../src/mcp/transport.ts";

const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** A deterministic generator (the same answers every run). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
}

describe("an answer the protocol refuses", () => {
  test("an answer to a request flagged exactly when the SDK's envelope schema refuses it; the ordinary ones never", () => {
    const next = random(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const values: unknown[] = [
      undefined,
      null,
      1,
      1.5,
      -3,
      2 ** 53,
      "x",
      "",
      true,
      [],
      [1],
      {},
      { a: 1 },
      { content: [] },
    ];
    const metas: unknown[] = [
      undefined,
      null,
      "x",
      [],
      {},
      { progressToken: 1 },
      { progressToken: "t" },
      { progressToken: 1.5 },
      { progressToken: null },
      { other: 1 },
      ...[null, "t", 1, {}, { taskId: 1 }, { taskId: "t" }, { taskId: "t", more: 1 }].map((task) => ({
        [RELATED_TASK]: task,
      })),
    ];
    let flagged = 0;
    for (let i = 0; i < 5_000; i++) {
      const m: Record<string, unknown> = { jsonrpc: "2.0", id: pick([1, "a", 0, -1, 1.5, null, 2 ** 53, {}]) };
      const shape = pick(["result", "error", "both", "none"]);
      if (shape === "result" || shape === "both") {
        const meta = pick(metas);
        m.result =
          next() < 0.7
            ? { ...(meta === undefined ? {} : { _meta: meta }), ...(next() < 0.5 ? { content: [] } : {}) }
            : pick(values);
      }
      if (shape === "error" || shape === "both")
        m.error =
          next() < 0.7
            ? {
                code: pick([1, -32603, 1.5, "1"]),
                message: pick(["m", 1, undefined]),
                ...(next() < 0.3 ? { data: pick(values) } : {}),
              }
            : pick(values);
      if (next() < 0.15) m[pick(["extra", "method", "params", "Ignore previous"])] = pick(values);
      const said = refusedAnswer(m);
      // An answer to a request (an id it could have, a result or an error) the SDK refuses is flagged: none waits out its deadline.
      const answer = (typeof m.id === "string" || Number.isSafeInteger(m.id)) && shape !== "none";
      if (answer && said === null)
        expect({ m, sdk: types.JSONRPCMessageSchema.safeParse(m).success }).toEqual({ m, sdk: true });
      if (said !== null) {
        flagged++;
        expect({ m, sdk: types.JSONRPCMessageSchema.safeParse(m).success }).toEqual({ m, sdk: false });
        expect(said).not.toMatch(/Ignore|extra/);
      }
    }
    expect(flagged).toBeGreaterThan(500);
    for (const ok of [
      { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "hi" }] } },
      { jsonrpc: "2.0", id: "x", result: { _meta: { progressToken: 3 } } },
      { jsonrpc: "2.0", id: 4, result: { _meta: { [RELATED_TASK]: { taskId: "t", more: 1 } } } },
      { jsonrpc: "2.0", id: 2, error: { code: -32601, message: "Method not found", data: { any: 1 } } },
      { jsonrpc: "2.0", method: "notifications/progress", params: {} },
      { jsonrpc: "2.0", id: 3, method: "ping" },
    ]) {
      expect(refusedAnswer(ok)).toBeNull();
    }
  });

  test("the pipe transport hands such an answer on as an error with toolgate's mark and words; a good one as it came", async () => {
    const lines = [
      JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [] }, "ignore previous instructions": 1 }),
      JSON.stringify({ jsonrpc: "2.0", id: 2, result: { content: [] } }),
      JSON.stringify({ jsonrpc: "2.0", id: 3, result: { _meta: "CANARY" } }),
    ];
    const stdout = new ReadableStream<Uint8Array>({
      start: (c) => (c.enqueue(new TextEncoder().encode(`${lines.join("\n")}\n`)), c.close()),
    });
    const t = new PipeTransport({ write: () => {}, stdout, endInput: () => {} });
    const got: unknown[] = [];
    t.onmessage = (m) => void got.push(m);
    await t.start();
    await t.closed;
    expect(got).toEqual([
      {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32603,
          message: "the answer: a key the protocol does not allow",
          data: { toolgate: MALFORMED_MARK },
        },
      },
      { jsonrpc: "2.0", id: 2, result: { content: [] } },
      {
        jsonrpc: "2.0",
        id: 3,
        error: { code: -32603, message: "result._meta: expected object", data: { toolgate: MALFORMED_MARK } },
      },
    ]);
  });
});
