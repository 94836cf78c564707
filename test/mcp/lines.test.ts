// A server's stdout read as lines under the message bound (src/result/ndjson.ts in PipeTransport):
// a line past the bound dropped as it arrives, its request failed at
// once as cut (never left to wait out its deadline). Whose answer it was is read from the line's
// edges as servers write them; an answer whose id cannot be read there fails every request in
// flight; a request or notification of the server's fails none. Then against a real server process
// that writes a 17 MiB answer on one line: the call fails within seconds, the connection goes on.
// Full suite only: real servers as children, one writing a 17 MiB line.
import { describe, expect, test } from "bun:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { join } from "node:path";
import { StreamRedactor } from "../../src/boundary/redact.ts";
import { waitUntil } from "../../src/launcher/end-tree.ts";
import { childEnv } from "../../src/launcher/env.ts";
import { connectTarget } from "../../src/mcp/connect.ts";
import { answerOf } from "../../src/mcp/lines.ts";
import type { Dropped } from "../../src/result/ndjson.ts";
import { CUT_MARK, PipeTransport } from "../../src/mcp/transport.ts";

const encode = (s: string) => new TextEncoder().encode(s);

describe("answerOf: whose answer a dropped line was", () => {
  const big = "x".repeat(2048);
  const edges = (line: string): Dropped => ({ head: line.slice(0, 1024), tail: line.slice(-1024) });
  test.each([
    [
      "the TypeScript SDK's order (result, jsonrpc, id)",
      JSON.stringify({ result: { text: big }, jsonrpc: "2.0", id: 5 }),
      { answer: true, id: 5 },
    ],
    [
      "the Python SDK's and rmcp's order (jsonrpc, id, result)",
      JSON.stringify({ jsonrpc: "2.0", id: 5, result: { text: big } }),
      { answer: true, id: 5 },
    ],
    [
      "an error answer",
      JSON.stringify({ jsonrpc: "2.0", id: 9, error: { code: 1, message: big } }),
      { answer: true, id: 9 },
    ],
    [
      "id first, then jsonrpc",
      JSON.stringify({ id: 'a"b', jsonrpc: "2.0", result: { text: big } }),
      { answer: true, id: 'a"b' },
    ],
    [
      "result, id, jsonrpc",
      JSON.stringify({ result: { text: big }, id: "r-1", jsonrpc: "2.0" }),
      { answer: true, id: "r-1" },
    ],
    [
      "spaces between the members",
      `{ "jsonrpc" : "2.0" , "id" : 12 , "result" : {"t":"${big}"} }`,
      { answer: true, id: 12 },
    ],
    [
      "an id inside the result is not the answer's",
      JSON.stringify({ result: { text: big, id: 3 }, jsonrpc: "2.0", x: 1 }),
      { answer: true },
    ],
    [
      "a request of the server's (TypeScript: method first, id last)",
      JSON.stringify({ method: "sampling/createMessage", params: { text: big }, jsonrpc: "2.0", id: 0 }),
      { answer: false },
    ],
    [
      "a request of the server's (Python: jsonrpc, id, method)",
      JSON.stringify({ jsonrpc: "2.0", id: 0, method: "sampling/createMessage", params: { text: big } }),
      { answer: false },
    ],
    [
      "a notification",
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: big } }),
      { answer: false },
    ],
    ["not JSON at all", `log: ${big}`, { answer: false }],
  ])("%s", (_, line, said) => {
    expect(answerOf(edges(line))).toEqual(said);
  });
});

/** A PipeTransport over a stdout the test writes, with what it hands on and what it reports. */
function piped(max = 4096) {
  let out!: ReadableStreamDefaultController<Uint8Array>;
  const stdout = new ReadableStream<Uint8Array>({ start: (c) => void (out = c) });
  const t = new PipeTransport({ write: () => {}, stdout, endInput: () => {} }, () => {}, max);
  const got: unknown[] = [];
  const errors: string[] = [];
  t.onmessage = (m) => void got.push(m);
  t.onerror = (e) => void errors.push(e.message);
  return { t, got, errors, write: (s: string) => out.enqueue(encode(s)), end: () => out.close() };
}

const cut = (id: number, message: string) => ({
  jsonrpc: "2.0",
  id,
  error: { code: -32603, message, data: { toolgate: CUT_MARK } },
});
const request = (id: number, method = "tools/call") => ({ jsonrpc: "2.0", id, method, params: {} }) as JSONRPCMessage;

describe("PipeTransport: an answer past the bound", () => {
  test("fails the request it answered at once, in toolgate's words; the others wait for their own answers", async () => {
    const p = piped();
    await p.t.start();
    await p.t.send(request(1));
    await p.t.send(request(2, "resources/read"));
    p.write(`${JSON.stringify({ result: { text: "a".repeat(10_000) }, jsonrpc: "2.0", id: 2 })}\n`);
    p.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, result: { ok: true } })}\n`);
    p.end();
    await p.t.closed;
    expect(p.got).toEqual([
      cut(2, "its answer to resources/read passed 4096 bytes in one line; toolgate dropped the line unread"),
      { jsonrpc: "2.0", id: 1, result: { ok: true } },
    ]);
  });

  test("its id among its first members: the request fails as the bound is passed, before the line ends; the rest is dropped, the next line read", async () => {
    const p = piped();
    await p.t.start();
    await p.t.send(request(1));
    await p.t.send(request(2));
    p.write(`{"jsonrpc":"2.0","id":1,"result":{"text":"${"a".repeat(5_000)}`);
    expect(await waitUntil(() => p.got.length === 1, 5_000)).toBe(true);
    expect(p.got).toEqual([
      cut(1, "its answer to tools/call passed 4096 bytes in one line; toolgate dropped the line unread"),
    ]);
    p.write(`${"a".repeat(5_000)}"}}\n`);
    p.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, result: {} })}\n`);
    p.end();
    await p.t.closed;
    expect(p.got.slice(1)).toEqual([{ jsonrpc: "2.0", id: 2, result: {} }]);
    expect(p.errors).toEqual([]);
  });

  test("its id unreadable: the only request in flight fails; with several, each of them", async () => {
    const p = piped();
    await p.t.start();
    const blind = `{"result":{"text":"${"a".repeat(10_000)}"},"jsonrpc":"2.0","id":1,"x":0}\n`;
    await p.t.send(request(1));
    p.write(blind);
    expect(await waitUntil(() => p.got.length === 1, 5_000)).toBe(true);
    await p.t.send(request(2));
    await p.t.send(request(3, "prompts/get"));
    // A request answered or cancelled before is no longer in flight.
    await p.t.send(request(4));
    p.write(`${JSON.stringify({ jsonrpc: "2.0", id: 4, result: {} })}\n`);
    expect(await waitUntil(() => p.got.length === 2, 5_000)).toBe(true);
    await p.t.send(request(5));
    await p.t.send({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 5 } } as JSONRPCMessage);
    p.write(blind);
    p.end();
    await p.t.closed;
    const several =
      "an answer passed 4096 bytes in one line while 2 requests were in flight, and its id could not be read: each of them is failed, as it may be the one answered; toolgate dropped the line unread";
    expect(p.got).toEqual([
      cut(
        1,
        "its answer to tools/call passed 4096 bytes in one line (the only request in flight; the line's id could not be read); toolgate dropped the line unread",
      ),
      { jsonrpc: "2.0", id: 4, result: {} },
      cut(2, several),
      cut(3, several),
    ]);
  });

  test("a request or notification of the server's past the bound fails nothing, and is reported", async () => {
    const p = piped();
    await p.t.start();
    await p.t.send(request(0));
    p.write(
      `${JSON.stringify({ method: "sampling/createMessage", params: { text: "a".repeat(10_000) }, jsonrpc: "2.0", id: 0 })}\n`,
    );
    p.write(
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { data: "a".repeat(10_000) } })}\n`,
    );
    p.write(`${JSON.stringify({ jsonrpc: "2.0", id: 0, result: {} })}\n`);
    p.end();
    await p.t.closed;
    expect(p.got).toEqual([{ jsonrpc: "2.0", id: 0, result: {} }]);
    expect(p.errors).toEqual(
      Array(2).fill("a line of more than 4096 bytes from the server was dropped unread (not an answer to a request)"),
    );
  });
});

describe("a real server writing a 17 MiB answer on one line", () => {
  const FIXTURE = join(import.meta.dir, "..", "fixtures", "mcp", "wire.ts");
  const env = childEnv({ parent: {}, values: {} });
  const opts = {
    pin: false,
    connectTimeoutMs: 10_000,
    requestTimeoutMs: 10_000,
    version: "test",
    redactor: (s: readonly string[]) => new StreamRedactor(s),
  };

  test.each([
    ["huge", "the TypeScript SDK's order"],
    ["huge-head", "the Python SDK's order"],
  ])(
    "%s (%s): the call fails too_large within seconds, not at its deadline; the connection goes on",
    async (message) => {
      if (!env.ok) throw new Error(env.refusal.message);
      const c = await connectTarget(
        { kind: "stdio", name: "wire", argv: [process.execPath, FIXTURE], env: env.value, cwd: import.meta.dir },
        opts,
      );
      try {
        const t0 = performance.now();
        const r = await c.session.callTool("echo", { message }, { timeoutMs: 60_000 });
        expect(performance.now() - t0).toBeLessThan(15_000);
        expect(r).toEqual({
          ok: false,
          kind: "too_large",
          message: "its answer to tools/call passed 16 MiB in one line; toolgate dropped the line unread",
        });
        expect(await c.session.callTool("echo", { message: "after" }, { timeoutMs: 5_000 })).toEqual({
          ok: true,
          result: { content: [{ type: "text", text: "after" }] },
        });
      } finally {
        await c.close(1_000);
      }
    },
    30_000,
  );
});
