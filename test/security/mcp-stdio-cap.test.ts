// A stdio MCP server that answers with more than 16 MiB on one line: the line was gathered whole
// (a string grown chunk by chunk, about 200 MiB at its peak), then thrown away without failing the
// request, which waited out its whole deadline. Now the line is dropped as it arrives, its request
// fails at once with mcp.response_too_large (exit 1: the server answered, too much to read), the
// journal says so, and serve's memory stays near where it was. Through dist/toolgate against a server
// that writes 17 MiB answers in the TypeScript SDK's key order (the id last).
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";
import { serve, site } from "../serve/client.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "mcp", "wire.ts");
const GRANT = ["--allow-run", "--approve", "all"];
/** A deadline far past what the test allows the call: a call that waits for it fails the test. */
const CONFIG = { mcpServers: { wire: { command: process.execPath, args: [FIXTURE], timeout_secs: 30 } } };
const SAID =
  'echo: MCP server "wire": its answer to tools/call passed 16 MiB in one line; toolgate dropped the line unread (a result passes the output boundary only up to 64 KiB)';

/** The peak resident memory of a live process, in MiB (VmHWM). */
const peakMiB = (pid: number) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

describe("a stdio MCP answer past 16 MiB on one line", () => {
  test("call: fails mcp.response_too_large within seconds (exit 1), not at its deadline; journaled", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "toolgate.json"), JSON.stringify(CONFIG));
    const t0 = performance.now();
    const r = await run(["call", "wire__echo", '{"message":"huge"}', ...GRANT], { cwd: dir.path });
    expect(performance.now() - t0).toBeLessThan(15_000);
    expect([r.code, json(r)]).toEqual([
      1,
      { status: "failed", tool: "wire__echo", error_code: "mcp.response_too_large", message: SAID },
    ]);
    const db = new Database(join(dir.path, ".toolgate", "toolgate.db"), { readonly: true });
    try {
      expect(db.query("SELECT event, status, error_code FROM journal WHERE tool = 'wire__echo'").all()).toEqual([
        { event: "tool_finished", status: "failed", error_code: "mcp.response_too_large" },
      ]);
    } finally {
      db.close();
    }
  }, 40_000);

  test("serve: the call fails within seconds, serve's peak memory grows by far less than the answer's size, the next call on the same server works", async () => {
    await using root = tempDir();
    const s = site(root.path);
    writeFileSync(join(s.ws, "toolgate.json"), JSON.stringify(CONFIG));
    await using served = await serve(GRANT, { cwd: s.ws, home: s.home });
    const call = (message: string) =>
      served.client.callTool({ name: "wire__echo", arguments: { message } }, undefined, { timeout: 60_000 });
    expect((await call("warm")).content).toEqual([{ type: "text", text: "warm" }]);
    const before = peakMiB(served.pid);
    const t0 = performance.now();
    const huge = await call("huge");
    expect(performance.now() - t0).toBeLessThan(15_000);
    expect(huge._meta).toEqual({ toolgate: { status: "failed", error_code: "mcp.response_too_large" } });
    // Gathering the line whole took about 200 MiB; dropping it as it comes, a few chunks.
    expect(peakMiB(served.pid) - before).toBeLessThan(64);
    expect((await call("after")).content).toEqual([{ type: "text", text: "after" }]);
  }, 60_000);
});
