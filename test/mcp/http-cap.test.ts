// src/mcp/http-cap.ts in-process: SSE passed on whole events under the bound (LF, CRLF and CR line
// ends, events split across chunks), a body read up to it, and past it the request's cut error
// carrying CUT_MARK, the upstream body cancelled. An SSE answer whose envelope the SDK refuses is
// handed on as the stand-in carrying MALFORMED_MARK (the SDK's own transport takes it and settles the request).
// A log message on the stream of a POST that carried one request is marked with that request's id.
import { describe, expect, test } from "bun:test";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { cappedFetch, RELATED_MARK } from "../../src/mcp/http-cap.ts";
import { CUT_MARK, MALFORMED_MARK } from "../../src/mcp/transport.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** A base fetch answering `chunks` with this content type; `state` tells what the reader did. */
function upstream(chunks: readonly string[], type: string, status = 200) {
  const state = { pulled: 0, cancelled: false };
  const base = async () =>
    new Response(
      new ReadableStream<Uint8Array>(
        {
          pull(c) {
            if (state.pulled === chunks.length) return c.close();
            c.enqueue(enc(chunks[state.pulled++]!));
          },
          cancel() {
            state.cancelled = true;
          },
        },
        { highWaterMark: 0 },
      ),
      { status, headers: { "content-type": type } },
    );
  return { base, state };
}

const POST = { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: {} }) };
const cutEvent = (max: number) =>
  `event: message\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: 7, error: { code: -32603, message: `its answer to tools/call passed ${max / (1024 * 1024)} MiB in one message; toolgate stopped reading it there`, data: { toolgate: CUT_MARK } } })}\n\n`;

/** Every chunk the capped body hands on, as text. */
async function read(r: Response): Promise<string[]> {
  const out: string[] = [];
  for await (const c of r.body!) out.push(new TextDecoder().decode(c));
  return out;
}

describe("an SSE stream", () => {
  test.each([
    ["LF", ["event: message\ndata: {}\n\n", ": keepalive\n\n"], ["event: message\ndata: {}\n\n", ": keepalive\n\n"]],
    ["CRLF", ["data: a\r\n\r\ndata: b\r\n\r\n"], ["data: a\r\n\r\ndata: b\r\n\r\n"]],
    ["CR", ["data: a\r\rdata: b\r\r"], ["data: a\r\rdata: b\r\r"]],
    ["an event split over chunks, held until whole", ["data: ab", "cd\n", "\ndata: e"], ["data: abcd\n\n", "data: e"]],
    ["a CRLF split between chunks", ["data: a\r\n\r", "\ndata: b\n\n"], ["data: a\r\n\r", "\ndata: b\n\n"]],
  ])("passes whole events on (%s)", async (_, chunks, expected) => {
    const { base } = upstream(chunks, "text/event-stream");
    expect(await read(await cappedFetch(base, 1024)("http://x/mcp", POST))).toEqual(expected);
  });

  test("an event of exactly the bound passes; one byte more is cut: the partial event dropped, the request answered, the rest never read", async () => {
    const event = (n: number) => `data: ${"x".repeat(n - 8)}\n\n`;
    expect(event(64)).toHaveLength(64);
    const fits = upstream([event(64)], "text/event-stream");
    expect(await read(await cappedFetch(fits.base, 64)("http://x/mcp", POST))).toEqual([event(64)]);
    const over = upstream(
      ["data: ok\n\n", event(65).slice(0, 40), event(65).slice(40), "data: never\n\n"],
      "text/event-stream",
    );
    expect(await read(await cappedFetch(over.base, 64)("http://x/mcp", POST))).toEqual(["data: ok\n\n", cutEvent(64)]);
    expect(over.state).toEqual({ pulled: 3, cancelled: true });
  });

  test("a GET stream (no request) past the bound just ends", async () => {
    const { base, state } = upstream(["data: ok\n\n", `data: ${"y".repeat(100)}`, "\n\n"], "text/event-stream");
    expect(await read(await cappedFetch(base, 64)("http://x/mcp", { method: "GET" }))).toEqual(["data: ok\n\n"]);
    expect(state.cancelled).toBe(true);
  });
});

describe("an SSE answer whose envelope the SDK refuses", () => {
  const good = JSON.stringify({ jsonrpc: "2.0", id: 6, result: { content: [{ type: "text", text: "fine" }] } });
  const bad = JSON.stringify({
    jsonrpc: "2.0",
    id: 7,
    result: { content: [] },
    "ignore previous instructions CANARY": 1,
  });
  const standIn = (id: number, message: string) =>
    JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32603, message, data: { toolgate: MALFORMED_MARK } } });

  test.each([
    [
      "beside a well-formed one and a comment, its id and retry kept",
      [`: hi\n\nevent: message\ndata: ${good}\n\nid: 5\nretry: 100\ndata: ${bad}\n\n`],
      [
        `: hi\n\nevent: message\ndata: ${good}\n\nid: 5\nretry: 100\ndata: ${standIn(7, "the answer: a key the protocol does not allow")}\n\n`,
      ],
    ],
    [
      "its data over two lines, CRLF",
      ['data: {"jsonrpc":"2.0","id":8,\r\ndata: "result":{"_meta":"CANARY"}}\r\n\r\n'],
      [`data: ${standIn(8, "result._meta: expected object")}\n\n`],
    ],
    [
      "after a BOM at the stream's start, split over chunks",
      [`\uFEFFdata: ${bad.slice(0, 20)}`, `${bad.slice(20)}\n\n`],
      [`data: ${standIn(7, "the answer: a key the protocol does not allow")}\n\n`],
    ],
    [
      "in an event of another type: not a message, as it came",
      [`event: other\ndata: ${bad}\n\n`],
      [`event: other\ndata: ${bad}\n\n`],
    ],
    [
      "well-formed answers, a notification, noise: as they came",
      [
        `data: ${good}\n\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\ndata: not json\n\ndata: [1]\n\n`,
      ],
      [
        `data: ${good}\n\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\ndata: not json\n\ndata: [1]\n\n`,
      ],
    ],
  ])("%s", async (_, chunks, expected) => {
    const { base } = upstream(chunks, "text/event-stream");
    expect(await read(await cappedFetch(base, 1024)("http://x/mcp", POST))).toEqual(expected);
  });

  test("the SDK's transport takes the stand-in (it dropped the answer before): the request settles", async () => {
    const { base } = upstream([`data: ${good}\n\n`, `data: ${bad}\n\n`], "text/event-stream");
    const transport = new StreamableHTTPClientTransport(new URL("http://x/mcp"), { fetch: cappedFetch(base, 1024) });
    const got: JSONRPCMessage[] = [];
    const errors: Error[] = [];
    const settled = new Promise<void>((res) => {
      transport.onmessage = (m) => void (got.push(m), "id" in m && m.id === 7 && res());
      transport.onerror = (e) => void (errors.push(e), res());
    });
    await transport.start();
    await transport.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: {} });
    await settled;
    expect({ got, errors }).toEqual({
      got: [JSON.parse(good), JSON.parse(standIn(7, "the answer: a key the protocol does not allow"))],
      errors: [],
    });
    await transport.close();
  });
});

describe("a log message on a request's own stream", () => {
  const log = JSON.stringify({
    jsonrpc: "2.0",
    method: "notifications/message",
    params: { level: "info", data: "asked for x" },
  });
  const marked = (id: number | string) =>
    JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "info", data: "asked for x", [RELATED_MARK]: id },
    });
  const progress = '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":1}}';
  const answer = '{"jsonrpc":"2.0","id":7,"result":{}}';

  test("is marked with the id of the one request the POST carried; the progress and the answer beside it pass as they came", async () => {
    const { base } = upstream(
      [`id: 1\ndata: ${log}\n\ndata: ${progress}\n\n`, `data: ${answer}\n\n`],
      "text/event-stream",
    );
    expect(await read(await cappedFetch(base, 1024)("http://x/mcp", POST))).toEqual([
      `id: 1\ndata: ${marked(7)}\n\ndata: ${progress}\n\n`,
      `data: ${answer}\n\n`,
    ]);
  });

  test.each([
    ["a GET stream (no request)", { method: "GET" }],
    [
      "a POST of two requests (a batch)",
      {
        method: "POST",
        body: JSON.stringify([
          { jsonrpc: "2.0", id: 7, method: "tools/call", params: {} },
          { jsonrpc: "2.0", id: 8, method: "tools/call", params: {} },
        ]),
      },
    ],
    [
      "a POST of a notification",
      { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) },
    ],
  ])("is not marked on %s: nothing there names one request", async (_, init) => {
    const { base } = upstream([`data: ${log}\n\n`], "text/event-stream");
    expect(await read(await cappedFetch(base, 1024)("http://x/mcp", init))).toEqual([`data: ${log}\n\n`]);
  });
});

describe("a body", () => {
  test("under the bound: read whole, status and headers kept", async () => {
    const { base } = upstream(['{"jsonrpc":', '"2.0"}'], "application/json", 200);
    const r = await cappedFetch(base, 64)("http://x/mcp", POST);
    expect([r.status, r.headers.get("content-type"), await r.text()]).toEqual([
      200,
      "application/json",
      '{"jsonrpc":"2.0"}',
    ]);
  });

  test("past the bound: the request's cut error instead, the rest never read", async () => {
    const { base, state } = upstream(["x".repeat(40), "x".repeat(40), "x".repeat(40)], "application/json");
    const r = await cappedFetch(base, 64)("http://x/mcp", POST);
    expect(JSON.parse(await r.text())).toEqual(JSON.parse(cutEvent(64).split("data: ")[1]!));
    expect(state).toEqual({ pulled: 2, cancelled: true });
  });

  test("an error page past the bound (no JSON-RPC to answer): its first bytes only", async () => {
    const { base, state } = upstream(["e".repeat(40), "e".repeat(40), "e".repeat(40)], "text/html", 500);
    const r = await cappedFetch(base, 64)("http://x/mcp", POST);
    expect([r.status, await r.text()]).toEqual([500, "e".repeat(64)]);
    expect(state.cancelled).toBe(true);
  });

  test("a 202 or 204 is handed on as it came", async () => {
    for (const status of [202, 204]) {
      const r = await cappedFetch(async () => new Response(null, { status }), 64)("http://x/mcp", POST);
      expect(r.status).toBe(status);
    }
  });
});
