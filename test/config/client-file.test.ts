import { describe, expect, test } from "bun:test";
import { clientFileNote, isClientFile, readClientFile } from "../../src/config/client-file.ts";

const never = () => {
  throw new Error("the file's content was not needed to decide");
};

describe("isClientFile", () => {
  test("by name: each client's file name and any .toml, without reading the content", () => {
    for (const p of [
      "/w/.vscode/mcp.json",
      "/h/.cursor/mcp.json",
      "/w/.mcp.json",
      "/c/claude_desktop_config.json",
      "/z/settings.json",
      "/w/mcp_config.json",
      "/r/mcp_settings.json",
      "/c/cline_mcp_settings.json",
      "/h/.codex/config.toml",
      "/x/Servers.TOML",
    ]) {
      expect([p, isClientFile(p, never)]).toEqual([p, true]);
    }
    expect(isClientFile("/w/toolgate.json", never)).toBe(false);
  });

  test("by content under another name: only a server list toolgate itself never writes", () => {
    expect(isClientFile("/w/ci.json", () => ({ servers: {} }))).toBe(true);
    expect(isClientFile("/w/ci.json", () => ({ context_servers: {} }))).toBe(true);
    expect(isClientFile("/w/ci.json", () => ({ mcpServers: {} }))).toBe(false);
    expect(isClientFile("/w/ci.json", () => null)).toBe(false);
    expect(isClientFile("/w/ci.json", () => [{ servers: {} }])).toBe(false);
  });
});

describe("readClientFile", () => {
  test("only the servers become config data; the rest is reported", () => {
    const r = readClientFile("/h/.codex/config.toml", 'model = "o3"\n[mcp_servers.t]\ncommand = "uvx"\n', JSON.parse);
    expect(r).toEqual({
      ok: true,
      data: { mcpServers: { t: { command: "uvx" } } },
      imported: {
        format: "codex",
        servers: { t: { command: "uvx" } },
        skipped: [{ key: "model", why: "not an MCP server list (the rest of the file is ignored)" }],
        notes: [],
      },
    });
    if (r.ok)
      expect(clientFileNote("/h/.codex/config.toml", r.imported)).toBe(
        "/h/.codex/config.toml: read as another client's MCP config (codex: 1 server); left out: model (`toolgate config import /h/.codex/config.toml` says why)",
      );
  });

  test("a parse failure says which syntax was expected", () => {
    const r = readClientFile("/w/mcp.json", "{", JSON.parse);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toStartWith("not JSON (");
  });

  test("nothing left out: the note is one short line", () => {
    const r = readClientFile(
      "/w/.mcp.json",
      '{"mcpServers":{"a":{"command":"x"},"b":{"url":"http://127.0.0.1:1/mcp"}}}',
      JSON.parse,
    );
    expect(r.ok && clientFileNote("/w/.mcp.json", r.imported)).toBe(
      "/w/.mcp.json: read as another client's MCP config (mcpServers: 2 servers)",
    );
  });
});
