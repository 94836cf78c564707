// End to end: another client's MCP config named with --config (or $TOOLGATE_CONFIG) is read as it
// is — VS Code, Cursor, Codex TOML — and a call goes through its server; found by search it is not.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { json, ROOT, run, tempDir } from "../helpers.ts";

const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const NODE = Bun.which("node") ?? "/usr/bin/node";
const GRANT = ["--allow-run", "--approve", "all", "--no-session"];
const ECHO = {
  status: "success",
  tool: "everything__echo",
  payload: { content: [{ type: "text", text: "Echo: hi" }] },
};

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};

describe("another client's file as --config", () => {
  test("VS Code .vscode/mcp.json (comments, inputs): the server is called; the workspace stays the cwd; the lock lies there", async () => {
    await using dir = tempDir();
    const file = join(dir.path, ".vscode", "mcp.json");
    write(
      file,
      `{
  // VS Code's own shape
  "inputs": [{ "type": "promptString", "id": "greeting" }],
  "servers": { "everything": { "type": "stdio", "command": ${JSON.stringify(NODE)}, "args": [${JSON.stringify(EVERYTHING)}, "stdio"], "dev": { "watch": "x" } } },
}`,
    );
    const shown = await run(["config", "--json", "--config", ".vscode/mcp.json"], { cwd: dir.path });
    expect(shown.code).toBe(0);
    const leaves = json(shown);
    expect(leaves.workspace).toEqual({ value: dir.path, origin: "default" });
    expect(leaves["mcpServers.everything"].value).toEqual({
      type: "stdio",
      command: NODE,
      args: [EVERYTHING, "stdio"],
    });
    expect(shown.stderr).toBe(
      `toolgate: ${file}: read as another client's MCP config (vscode: 1 server); left out: servers.everything.dev (\`toolgate config import ${file}\` says why)\n`,
    );
    const echo = await run(["call", "everything__echo", '{"message":"hi"}', "--config", ".vscode/mcp.json", ...GRANT], {
      cwd: dir.path,
    });
    expect([echo.code, json(echo)]).toEqual([0, ECHO]);
    const locked = await run(["tools", "--lock", "--allow-run", "--config", ".vscode/mcp.json", "--no-session"], {
      cwd: dir.path,
    });
    expect(locked.code).toBe(0);
    expect([
      existsSync(join(dir.path, "toolgate.lock")),
      existsSync(join(dir.path, ".vscode", "toolgate.lock")),
    ]).toEqual([true, false]);
  });

  test("Codex config.toml through $TOOLGATE_CONFIG", async () => {
    await using dir = tempDir();
    const file = join(dir.path, "codex", "config.toml");
    write(
      file,
      `model = "o3"\n\n[mcp_servers.everything]\ncommand = ${JSON.stringify(NODE)}\nargs = [${JSON.stringify(EVERYTHING)}, "stdio"]\ntool_timeout_sec = 30\n`,
    );
    const echo = await run(["call", "everything__echo", '{"message":"hi"}', ...GRANT], {
      cwd: dir.path,
      env: { TOOLGATE_CONFIG: file },
    });
    expect([echo.code, json(echo)]).toEqual([0, ECHO]);
    const shown = await run(["config", "--json"], { cwd: dir.path, env: { TOOLGATE_CONFIG: file } });
    expect(json(shown)["mcpServers.everything"].value).toEqual({
      command: NODE,
      args: [EVERYTHING, "stdio"],
      timeout_secs: 30,
    });
  });

  test("a Cursor file's toolgate keys are not read: only its servers are (no permissions from a client file)", async () => {
    await using dir = tempDir();
    write(
      join(dir.path, "mcp.json"),
      JSON.stringify({
        mcpServers: { everything: { command: NODE, args: [EVERYTHING, "stdio"] } },
        permissions: { allow: { run: true } },
      }),
    );
    const shown = await run(["config", "--json", "--config", "mcp.json"], { cwd: dir.path });
    expect(Object.keys(json(shown)).filter((k) => k.startsWith("permissions.") || k.startsWith("mcpServers."))).toEqual(
      ["mcpServers.everything", "permissions.prompt"],
    );
    expect(shown.stderr).toContain("left out: permissions");
    // Without --allow-run the connect is not granted by the file.
    const echo = await run(
      [
        "call",
        "everything__echo",
        '{"message":"hi"}',
        "--config",
        "mcp.json",
        "--approve",
        "all",
        "--no-prompt",
        "--no-session",
      ],
      { cwd: dir.path },
    );
    expect([echo.code, json(echo).error_code]).toEqual([4, "permission.denied"]);
  });

  test("found by search, a checkout's .mcp.json is not toolgate's config", async () => {
    await using dir = tempDir();
    write(
      join(dir.path, ".mcp.json"),
      JSON.stringify({ mcpServers: { everything: { command: NODE, args: [EVERYTHING, "stdio"] } } }),
    );
    const shown = await run(["config", "--json"], { cwd: dir.path });
    expect(Object.keys(json(shown)).filter((k) => k.startsWith("mcpServers."))).toEqual([]);
  });

  test("a client file that is broken or holds no server list fails the boot naming the file (exit 5)", async () => {
    await using dir = tempDir();
    write(join(dir.path, "config.toml"), "model = [\n");
    const bad = await run(["tools", "--config", "config.toml"], { cwd: dir.path });
    expect(bad.code).toBe(5);
    expect(bad.stderr).toStartWith(
      `toolgate: ${join(dir.path, "config.toml")}: read as another client's MCP config: not TOML (`,
    );
    write(join(dir.path, "settings.json"), JSON.stringify({ theme: "dark" }));
    const none = await run(["tools", "--config", "settings.json"], { cwd: dir.path });
    expect([none.code, none.stderr]).toEqual([
      5,
      `toolgate: ${join(dir.path, "settings.json")}: read as another client's MCP config: no MCP servers found: expected "mcpServers" or "servers" or "context_servers" at the top level\n  hint: name a toolgate.json with --config, or fix that file\n`,
    ]);
  });
});
