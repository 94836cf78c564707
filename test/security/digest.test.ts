// The approval digest covers what runs (docs/config.md): changing an authored tool's command,
// approval, needs or executable, or an MCP server's command line or a tool's description, changes
// its digest, so toolgate.lock refuses it and a remembered approval no longer carries it.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, onTty, run, tempDir } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "las", "server.ts");
const MANIFEST = {
  name: "t",
  description: "Answers with an empty object.",
  input_schema: { type: "object" },
  effect: "read",
  approval: "required",
};
const RUN = "#!/bin/sh\necho '{}'\n";

function tool(ws: string, manifest: Record<string, unknown> = MANIFEST, runText = RUN): void {
  mkdirSync(join(ws, "tools", "t"), { recursive: true });
  writeFileSync(join(ws, "tools", "t", "tool.json"), JSON.stringify(manifest));
  writeFileSync(join(ws, "tools", "t", "run"), runText);
  chmodSync(join(ws, "tools", "t", "run"), 0o755);
}

const CALL = ["call", "t", "{}", "--allow-run", "--approve", "t"];

describe("an authored tool's digest covers its manifest and executable", () => {
  test.each([
    ["command", { ...MANIFEST, command: ["./run", "--other"] }, RUN, "what runs changed"],
    ["approval", { ...MANIFEST, approval: "never" }, RUN, "what runs changed"],
    ["needs", { ...MANIFEST, needs: { net: ["example.org:443"] } }, RUN, "what runs changed"],
    ["executable's content", MANIFEST, "#!/bin/sh\necho '{\"pwned\":true}'\n", "what runs changed"],
    ["description", { ...MANIFEST, description: "Now does something else." }, RUN, "description changed"],
  ])("a changed %s is refused by toolgate.lock (descriptor_changed, exit 5)", async (_what, manifest, runText, why) => {
    await using ws = tempDir();
    tool(ws.path);
    expect((await run(["tools", "--lock"], { cwd: ws.path })).code).toBe(0);
    expect((await run(CALL, { cwd: ws.path })).code).toBe(0);
    tool(ws.path, manifest, runText);
    const r = await run(CALL, { cwd: ws.path });
    expect([r.code, json(r).error_code]).toEqual([5, "descriptor_changed"]);
    expect(json(r).message).toContain(why);
  });

  test('a remembered "always" approval does not carry a changed executable', async () => {
    await using ws = tempDir();
    // The user's state folder lies outside the workspace (one inside it is ignored).
    await using home = tempDir("toolgate-home-");
    const env = { HOME: home.path };
    tool(ws.path);
    const first = await onTty(ws.path, ["call", "t", "{}", "--allow-run"], "A\n", env);
    expect(first.out).toContain('"status":"success"');
    expect((await run(["call", "t", "{}", "--allow-run"], { cwd: ws.path, env })).code).toBe(0);
    tool(ws.path, MANIFEST, "#!/bin/sh\necho '{\"pwned\":true}'\n");
    const r = await run(["call", "t", "{}", "--allow-run"], { cwd: ws.path, env });
    expect([r.code, json(r).error_code]).toEqual([4, "approval.required"]);
  });
});

describe("an MCP tool's digest covers its server's command line and its description", () => {
  const server = (ws: string, pid: string, env: Record<string, string> = {}) =>
    writeFileSync(
      join(ws, "toolgate.json"),
      JSON.stringify({
        mcpServers: { x: { command: process.execPath, args: [FIXTURE, `--pid-out=${join(ws, pid)}`], env } },
      }),
    );
  const CALL_MCP = ["call", "x__echo__echo", '{"message":"hi"}', "--allow-run", "--approve", "all"];

  test.each([
    ["arguments", (ws: string) => server(ws, "other.pid"), "what runs changed"],
    [
      "description (same command line)",
      (ws: string) => server(ws, "a.pid", { ECHO_DESCRIPTION: "Now something else" }),
      "description changed",
    ],
  ])("changed %s: the lock refuses the tool", async (_what, change, why) => {
    await using ws = tempDir();
    server(ws.path, "a.pid");
    expect((await run(["tools", "--lock", "--allow-run"], { cwd: ws.path })).code).toBe(0);
    expect((await run(CALL_MCP, { cwd: ws.path })).code).toBe(0);
    change(ws.path);
    const r = await run(CALL_MCP, { cwd: ws.path });
    expect([r.code, json(r).error_code]).toEqual([5, "descriptor_changed"]);
    expect(json(r).message).toContain(why);
  });
});
