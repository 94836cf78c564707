// End to end: an MCP server that answers a call with something that is not a tools/call result
// (the SDK's schema refuses it). It answered, so the connection was not lost; whether it acted is
// unknown: the call is indeterminate (exit 3, never replayed) with its own code, and the message
// says where the answer broke the schema, never what it held.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "mcp", "wire.ts");
const GRANT = ["--allow-run", "--approve", "all"];

describe("a malformed tools/call result", () => {
  test("is indeterminate mcp.malformed_result naming the place and how, in its own words, not transport_lost; no value of the answer is shown; the next call works", async () => {
    await using dir = tempDir();
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({ mcpServers: { wire: { command: process.execPath, args: [FIXTURE] } } }),
    );
    const bad = await run(["call", "wire__echo", '{"message":"malformed-canary"}', ...GRANT], { cwd: dir.path });
    expect(bad.code).toBe(3);
    const env = json(bad);
    expect([env.status, env.error_code]).toEqual(["indeterminate", "mcp.malformed_result"]);
    expect(env.message).toContain(
      'MCP server "wire" answered with something that is not a tools/call result (content[0]: invalid input);',
    );
    expect(env.message).toContain("the remote effect is unknown and the call is not replayed");
    expect(env.message).not.toContain("connection failed");
    expect(`${bad.stdout}${bad.stderr}`).not.toContain("CANARY");
    expect(`${bad.stdout}${bad.stderr}`).not.toContain("/home/alice");
    const plain = await run(["call", "wire__echo", '{"message":"malformed"}', ...GRANT], { cwd: dir.path });
    expect([plain.code, json(plain).error_code, json(plain).message]).toEqual([
      3,
      "mcp.malformed_result",
      expect.stringContaining("(content: "),
    ]);
    const good = await run(["call", "wire__echo", '{"message":"fine"}', ...GRANT], { cwd: dir.path });
    expect([good.code, json(good).payload?.content?.[0]?.text]).toEqual([0, "fine"]);
    // The journal holds it as indeterminate too.
    const log = await run(["log", "--json"], { cwd: dir.path });
    expect(log.stdout).toContain("mcp.malformed_result");
    expect(log.stdout).not.toContain("CANARY");
  }, 60_000);

  test("an answer whose envelope the protocol refuses (a key the server chose beside the result, a _meta or its related task that is a string) fails at once, not at the deadline; its text is in no output", async () => {
    await using dir = tempDir();
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({ mcpServers: { wire: { command: process.execPath, args: [FIXTURE], timeout_secs: 30 } } }),
    );
    for (const [message, said] of [
      ["envelope-key", "the answer: a key the protocol does not allow"],
      ["envelope-meta", "result._meta: expected object"],
      [
        "envelope-task",
        'result._meta["io.modelcontextprotocol/related-task"]: expected an object with a string taskId',
      ],
    ]) {
      const t0 = performance.now();
      const r = await run(["call", "wire__echo", JSON.stringify({ message }), ...GRANT], { cwd: dir.path });
      expect(performance.now() - t0).toBeLessThan(15_000);
      expect([r.code, json(r).error_code, json(r).status]).toEqual([3, "mcp.malformed_result", "indeterminate"]);
      expect(json(r).message).toContain(`not a tools/call result (${said})`);
      expect(`${r.stdout}${r.stderr}`).not.toMatch(/CANARY|alice|ignore previous/);
    }
    const log = await run(["log", "--json"], { cwd: dir.path });
    expect(log.stdout).not.toMatch(/CANARY|alice|ignore previous/);
  }, 60_000);
});
