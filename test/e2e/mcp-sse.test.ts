// End to end: a legacy HTTP+SSE server (`type: "sse"`, the SDK's SSEServerTransport on a
// node:http listener, loopback port 0) is listed and called through the SDK's SSE client
// transport instead of failing on a POST to its stream URL.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";
import { serveSseMcp, type SseMcp } from "../support/http-mcp-server.ts";

let sse: SseMcp;
let port = 0;
const auth: (string | undefined)[] = [];
beforeAll(async () => {
  sse = await serveSseMcp({
    name: "legacy",
    tools: [
      {
        name: "shout",
        description: "Upper-case",
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      },
    ],
    call: (r) => ({
      content: [{ type: "text", text: String((r.params.arguments as { text: string }).text).toUpperCase() }],
    }),
    onRequest: (headers) => void auth.push(headers["x-key"] as string | undefined),
  });
  port = sse.port;
});
afterAll(() => sse.close());

describe('type: "sse"', () => {
  test("listed and called over the legacy transport, headers on every request", async () => {
    await using dir = tempDir();
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({
        mcpServers: { old: { type: "sse", url: `http://127.0.0.1:${port}/sse`, headers: { "X-Key": "k-${SSE_KEY}" } } },
      }),
    );
    const grant = [`--allow-net=127.0.0.1:${port}`, "--allow-env=SSE_KEY", "--approve", "all"];
    const env = { SSE_KEY: "legacy-key-1" };
    auth.length = 0;
    const r = await run(["call", "old__shout", '{"text":"quiet"}', ...grant], { cwd: dir.path, env });
    expect([r.code, json(r)]).toEqual([
      0,
      { status: "success", tool: "old__shout", payload: { content: [{ type: "text", text: "QUIET" }] } },
    ]);
    expect(auth.length).toBeGreaterThan(1);
    expect(auth.every((k) => k === "k-legacy-key-1")).toBe(true);
  });
});
