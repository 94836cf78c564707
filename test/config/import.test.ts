import { describe, expect, test } from "bun:test";
import { importClientConfig } from "../../src/config/import.ts";

describe("importClientConfig", () => {
  test("VS Code: ${input:ID} becomes ${ID as a variable name} everywhere; an input not declared stays and boot will name it", () => {
    const doc = { inputs: [{ type: "promptString", id: "api-key" }], servers: { s: { command: "x", args: ["--key=${input:api-key}", "${input:other}"], env: { K: "${input:api-key}" } } } };
    const r = importClientConfig(doc, false);
    expect(r).toEqual({
      ok: true,
      value: {
        format: "vscode",
        servers: { s: { command: "x", args: ["--key=${API_KEY}", "${input:other}"], env: { K: "${API_KEY}" } } },
        skipped: [],
        notes: ['input "api-key": read from the environment as ${API_KEY} (set API_KEY; it needs --allow-env=API_KEY)'],
      },
    });
  });

  test("an entry that is not an object, a key of the wrong type and an unknown transport are skipped with why", () => {
    const r = importClientConfig({ mcpServers: { bad: "npx x", s: { command: ["npx"], type: "websocket", args: "x" } } }, false);
    expect(r).toEqual({
      ok: true,
      value: {
        format: "mcpServers",
        servers: { s: {} },
        skipped: [
          { key: "mcpServers.bad", why: "not an object" },
          { key: "mcpServers.s.command", why: "not a value of the right type" },
          { key: "mcpServers.s.type", why: '"websocket" is not a transport toolgate knows (stdio, http, sse)' },
          { key: "mcpServers.s.args", why: "not a value of the right type" },
        ],
        notes: [],
      },
    });
  });

  test("a document without a server list is refused naming what was looked for", () => {
    expect(importClientConfig({ model: "o3" }, true)).toEqual({ ok: false, problem: 'no MCP servers found: expected "mcp_servers" at the top level' });
    expect(importClientConfig([], false)).toEqual({ ok: false, problem: "the file is not an object" });
  });
});
