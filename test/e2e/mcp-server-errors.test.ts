// End to end: a JSON-RPC error that a server sends in answer to tools/call is that server's answer,
// whatever its code. -32000 and -32001 are ordinary codes a server may use (the SDK's client uses
// the same numbers for its own "connection closed" and "request timed out"), so they are neither
// transport_lost nor deadline: the call fails remote_tool with the server's message (exit 1), and
// the journal says so. Through dist/toolgate against a server written on the wire.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "mcp", "wire.ts");
const GRANT = ["--allow-run", "--approve", "all"];

describe("a JSON-RPC error from the server", () => {
  test.each([
    [-32000, "the upstream database refused the write"],
    [-32001, "the upstream job queue is full"],
    [-32603, "internal trouble in the handler"],
  ])(
    "code %d: failed remote_tool with the server's message, exit 1, journaled as such",
    async (code, text) => {
      await using dir = tempDir();
      // A long deadline: the answer is the server's error at once, never a wait.
      writeFileSync(
        join(dir.path, "toolgate.json"),
        JSON.stringify({ mcpServers: { wire: { command: process.execPath, args: [FIXTURE], timeout_secs: 60 } } }),
      );
      const t0 = performance.now();
      const r = await run(["call", "wire__echo", JSON.stringify({ message: `error:${code}:${text}` }), ...GRANT], {
        cwd: dir.path,
      });
      expect(performance.now() - t0).toBeLessThan(20_000);
      expect([r.code, json(r)]).toEqual([
        1,
        { status: "failed", tool: "wire__echo", error_code: "remote_tool", message: `MCP error ${code}: ${text}` },
      ]);
      const db = new Database(join(dir.path, ".toolgate", "toolgate.db"), { readonly: true });
      try {
        const rows = db.query("SELECT event, status, error_code FROM journal WHERE tool = 'wire__echo'").all();
        expect(rows).toEqual([{ event: "tool_finished", status: "failed", error_code: "remote_tool" }]);
      } finally {
        db.close();
      }
    },
    40_000,
  );

  test("code -32000 whose message holds a local path: the message passes the output boundary like any result, and is withheld", async () => {
    await using dir = tempDir();
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({ mcpServers: { wire: { command: process.execPath, args: [FIXTURE] } } }),
    );
    const r = await run(
      ["call", "wire__echo", JSON.stringify({ message: "error:-32000:cannot open /home/alice/.ssh/id_rsa" }), ...GRANT],
      { cwd: dir.path },
    );
    expect([r.code, json(r)]).toEqual([1, { status: "failed", error_code: "sensitive_output_rejected" }]);
    expect(`${r.stdout}${r.stderr}`).not.toContain("/home/alice");
  }, 40_000);
});
