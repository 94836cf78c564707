// Interop over Streamable HTTP with a server nobody here wrote: @modelcontextprotocol/server-everything
// in its streamableHttp mode answers each POST as an SSE stream (progress notifications, then the
// result), which toolgate reads event by event under the message bound and checks against the
// envelope rule (src/mcp/http-cap.ts). Its ordinary answers must pass unchanged: each is compared
// with what the official SDK Client gets from the same server.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { json, ROOT, run, tempDir } from "../helpers.ts";
import { inLoopbackNamespace } from "../http/netns.ts";

const NODE = Bun.which("node") ?? "/usr/bin/node";
const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");

inLoopbackNamespace(import.meta.path, () => {
  let server: Bun.Subprocess<"ignore", "ignore", "pipe"> | undefined;
  let port = 0;

  beforeAll(async () => {
    // A free port (server-everything takes its port from PORT and does not report one it was given as 0).
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    port = probe.port;
    probe.stop(true);
    server = Bun.spawn([NODE, EVERYTHING, "streamableHttp"], {
      env: { PATH: "/usr/bin:/bin", PORT: String(port) },
      stdin: "ignore",
      stdout: "ignore",
      stderr: "pipe",
    });
    // Ready once it says it listens (at most 20 s).
    const reader = server.stderr.getReader();
    let said = "";
    const until = Date.now() + 20_000;
    while (!said.includes("listening") && Date.now() < until) {
      const { value, done } = await reader.read();
      if (done) break;
      said += new TextDecoder().decode(value);
    }
    reader.releaseLock();
    if (!said.includes("listening")) throw new Error(`server-everything did not start: ${said}`);
  });
  afterAll(() => server?.kill());

  const calls: [string, Record<string, unknown>][] = [
    ["echo", { message: "over SSE" }],
    // Progress notifications on the same stream before the result.
    ["trigger-long-running-operation", { duration: 0.3, steps: 3 }],
    ["get-structured-content", { location: "New York" }],
    ["get-sum", { a: 2, b: 3 }],
  ];

  describe("server-everything over Streamable HTTP", () => {
    test("its tools are listed and called through dist/toolgate, each answer as the SDK Client gets it", async () => {
      const url = `http://127.0.0.1:${port}/mcp`;
      const client = new Client({ name: "sdk-reference", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const expected: unknown[] = [];
      try {
        for (const [name, args] of calls) expected.push(await client.callTool({ name, arguments: args }));
      } finally {
        await client.close();
      }
      await using dir = tempDir();
      await Bun.write(join(dir.path, "toolgate.json"), JSON.stringify({ mcpServers: { everything: { url } } }));
      const grant = [`--allow-net=127.0.0.1:${port}`, "--approve", "all"];
      const listed = await run(["tools", "--json", ...grant], { cwd: dir.path });
      expect(listed.code).toBe(0);
      const names = listed.stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { name: string }).name);
      expect(names).toEqual(expect.arrayContaining(calls.map(([n]) => `everything__${n}`)));
      for (const [i, [name, args]] of calls.entries()) {
        const r = await run(["call", `everything__${name}`, JSON.stringify(args), ...grant], { cwd: dir.path });
        expect([name, r.code, json(r)]).toEqual([
          name,
          0,
          { status: "success", tool: `everything__${name}`, payload: expected[i] },
        ]);
      }
    }, 60_000);
  });
});
