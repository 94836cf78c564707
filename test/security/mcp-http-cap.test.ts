// MCP over HTTP read a whole response before any size rule, so a server could make
// toolgate hold gigabytes. Now an answer is read under the message bound (16 MiB, as a stdio line):
// past it reading stops, the upstream body is cancelled, and the call fails at once with
// mcp.response_too_large, for a JSON body and for an SSE event alike. Through dist/toolgate against
// a loopback server that streams 96 MiB and counts what was pulled, in a loopback-only namespace.
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";
import { inLoopbackNamespace } from "../http/netns.ts";

const MiB = 1024 * 1024;
const TOTAL = 96 * MiB;
const CAP = 16 * MiB;

inLoopbackNamespace(import.meta.path, () => {
  /** What the last flood's body did: bytes the client pulled, and whether it cancelled the rest. */
  const flood = { pulled: 0, cancelled: false, finished: false };
  const chunk = new Uint8Array(256 * 1024).fill(97);

  /** `head`, then `a` up to TOTAL bytes (pulled as the client reads), then `tail`. */
  function streamed(head: string, tail: string): ReadableStream<Uint8Array> {
    Object.assign(flood, { pulled: 0, cancelled: false, finished: false });
    let stage = 0;
    return new ReadableStream({
      pull(c) {
        if (stage === 0) {
          stage = 1;
          return c.enqueue(new TextEncoder().encode(head));
        }
        if (flood.pulled < TOTAL) {
          flood.pulled += chunk.byteLength;
          return c.enqueue(chunk);
        }
        flood.finished = true;
        c.enqueue(new TextEncoder().encode(tail));
        c.close();
      },
      cancel() {
        flood.cancelled = true;
      },
    });
  }

  const TOOLS = ["flood_json", "flood_sse", "small"].map((name) => ({
    name,
    description: name,
    inputSchema: { type: "object" },
  }));
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (req.method !== "POST") return new Response(null, { status: req.method === "DELETE" ? 200 : 405 });
      const m = (await req.json()) as {
        id?: number;
        method: string;
        params?: { name?: string; protocolVersion?: string };
      };
      if (m.id === undefined) return new Response(null, { status: 202 });
      const answer = (result: unknown) => Response.json({ jsonrpc: "2.0", id: m.id, result });
      if (m.method === "initialize")
        return answer({
          protocolVersion: m.params?.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "flood", version: "1" },
        });
      if (m.method === "tools/list") return answer({ tools: TOOLS });
      const head = `{"jsonrpc":"2.0","id":${m.id},"result":{"content":[{"type":"text","text":"`;
      switch (m.params?.name) {
        case "flood_json":
          return new Response(streamed(head, `"}]}}`), { headers: { "content-type": "application/json" } });
        case "flood_sse":
          return new Response(streamed(`event: message\ndata: ${head}`, `"}]}}\n\n`), {
            headers: { "content-type": "text/event-stream" },
          });
        default:
          return answer({ content: [{ type: "text", text: "small answer" }] });
      }
    },
  });
  afterAll(() => server.stop(true));

  const callTool = async (tool: string) => {
    await using dir = tempDir();
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({ mcpServers: { flood: { type: "http", url: `http://127.0.0.1:${server.port}/mcp` } } }),
    );
    return await run(["call", `flood__${tool}`, "{}", `--allow-net=127.0.0.1:${server.port}`, "--approve", "all"], {
      cwd: dir.path,
      env: { XDG_STATE_HOME: join(dir.path, ".user-state") },
    });
  };

  describe("an HTTP MCP answer past 16 MiB", () => {
    test.each([
      ["flood_json", "a JSON body"],
      ["flood_sse", "one SSE event"],
    ])("%s (%s): cut while streaming, the rest never read, the call failed at once", async (tool) => {
      const r = await callTool(tool);
      expect([r.code, json(r)]).toEqual([
        1,
        {
          status: "failed",
          tool: `flood__${tool}`,
          error_code: "mcp.response_too_large",
          message: `${tool}: MCP server "flood": its answer to tools/call passed 16 MiB in one message; toolgate stopped reading it there (a result passes the output boundary only up to 64 KiB)`,
        },
      ]);
      // The reader stopped near the bound: what was pulled is the cap plus what sat in socket and
      // fetch buffers on the way (7 to 9 MiB here), never the whole.
      expect({ cancelled: flood.cancelled, finished: flood.finished }).toEqual({ cancelled: true, finished: false });
      expect(flood.pulled).toBeGreaterThanOrEqual(CAP);
      expect(flood.pulled).toBeLessThan(2 * CAP);
    });

    test("an answer under the bound is read whole, as before", async () => {
      const r = await callTool("small");
      expect([r.code, json(r)]).toEqual([
        0,
        { status: "success", tool: "flood__small", payload: { content: [{ type: "text", text: "small answer" }] } },
      ]);
    });
  });
});
