// Names that make a child run other code (module paths, interpreter options,
// git's config, repository and pager, programs started by name) cannot be handed to a child through
// an authored tool's needs.env or an MCP server's env, even with --allow-env.
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "las", "server.ts");

test.each(["PYTHONPATH", "NODE_PATH", "GIT_CONFIG_KEY_0", "PAGER"])(
  "an authored tool's needs.env naming %s fails the boot (exit 5) naming the key",
  async (name) => {
    await using ws = tempDir();
    mkdirSync(join(ws.path, "tools", "t"), { recursive: true });
    writeFileSync(join(ws.path, "tools", "t", "run"), "#!/bin/sh\necho '{}'\n");
    chmodSync(join(ws.path, "tools", "t", "run"), 0o755);
    writeFileSync(
      join(ws.path, "tools", "t", "tool.json"),
      JSON.stringify({ name: "t", description: "d", input_schema: { type: "object" }, needs: { env: [name] } }),
    );
    const r = await run(["call", "t", "{}", "--allow-run", "--allow-env", "--approve", "t"], {
      cwd: ws.path,
      env: { [name]: "/tmp" },
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`needs.env.0: "${name}"`);
    expect(r.stderr).toContain("changes what a child executes");
  },
);

test.each(["GIT_PAGER", "PYTHONHOME", "LESSOPEN"])(
  "an MCP server's env setting %s never starts the server",
  async (name) => {
    await using ws = tempDir();
    writeFileSync(
      join(ws.path, "toolgate.json"),
      JSON.stringify({
        mcpServers: { x: { command: process.execPath, args: [FIXTURE], env: { [name]: "sh -c id" } } },
      }),
    );
    const r = await run(["call", "x__echo__echo", '{"message":"hi"}', "--allow-run", "--approve", "all"], {
      cwd: ws.path,
    });
    expect([r.code, json(r).error_code]).toEqual([1, "mcp.connect_failed"]);
    expect(json(r).message).toContain(`${name} changes what the child executes before its own code runs`);
  },
);
