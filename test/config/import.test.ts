import { describe, expect, test } from "bun:test";
import { importClientConfig } from "../../src/config/import.ts";

describe("importClientConfig", () => {
  test("VS Code: ${input:ID} becomes ${ID as a variable name} everywhere; an input not declared stays and boot will name it", () => {
    const doc = {
      inputs: [{ type: "promptString", id: "api-key" }],
      servers: {
        s: { command: "x", args: ["--key=${input:api-key}", "${input:other}"], env: { K: "${input:api-key}" } },
      },
    };
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
    const r = importClientConfig(
      { mcpServers: { bad: "npx x", s: { command: ["npx"], type: "websocket", args: "x" } } },
      false,
    );
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

  test("env.PATH is kept (JSON and Codex), and a note says what it does and that only a trusted config has it honoured", () => {
    const json = importClientConfig(
      { mcpServers: { s: { command: "srv", env: { PATH: "/opt/helpers/bin:/usr/bin", K: "v" } } } },
      false,
    );
    const toml = importClientConfig({ mcp_servers: { t: { command: "srv", env: { PATH: "/opt/bin" } } } }, true);
    const note = (key: string) =>
      `${key}: kept; it replaces the fixed PATH the server is found and run on, which toolgate honours only in a config you pass with --config or trust (\`toolgate trust\`); an untrusted one is refused naming the key`;
    expect(json.ok && json.value).toEqual({
      format: "mcpServers",
      servers: { s: { command: "srv", env: { PATH: "/opt/helpers/bin:/usr/bin", K: "v" } } },
      skipped: [],
      notes: [note("mcpServers.s.env.PATH")],
    });
    expect(toml.ok && { servers: toml.value.servers, notes: toml.value.notes }).toEqual({
      servers: { t: { command: "srv", env: { PATH: "/opt/bin" } } },
      notes: [note("mcp_servers.t.env.PATH")],
    });
  });

  test("a document without a server list is refused naming what was looked for", () => {
    expect(importClientConfig({ model: "o3" }, true)).toEqual({
      ok: false,
      problem: 'no MCP servers found: expected "mcp_servers" at the top level',
    });
    expect(importClientConfig([], false)).toEqual({ ok: false, problem: "the file is not an object" });
  });
});
