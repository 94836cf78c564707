// End to end: `toolgate config import FILE` on each client's file as pasted from its docs:
// what it took, exactly which keys it skipped, and that the toolgate.json it wrote boots.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";

const IMPORTANT = "not an MCP server list (the rest of the file is ignored)";
const APPROVAL = "toolgate asks for approval itself; a client's auto-approve list does not loosen it";
const TIMEOUT = "clients disagree on its unit (seconds, milliseconds): set timeout_secs";

interface Case {
  client: string;
  file: string;
  text: string;
  format: string;
  servers: Record<string, unknown>;
  skipped: { key: string; why: string }[];
  notes?: string[];
}

const CASES: Case[] = [
  {
    client: "VS Code",
    file: ".vscode/mcp.json",
    text: `{
  // inputs are asked for by the editor
  "inputs": [{ "type": "promptString", "id": "github-token", "description": "GitHub PAT", "password": true }],
  "servers": {
    "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": { "Authorization": "Bearer \${input:github-token}" } },
    "fetch": { "type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"], "envFile": "\${workspaceFolder}/.env", "dev": { "watch": "src/**" } },
  },
}`,
    format: "vscode",
    servers: {
      github: {
        type: "http",
        url: "https://api.githubcopilot.com/mcp/",
        headers: { Authorization: "Bearer ${GITHUB_TOKEN}" },
      },
      fetch: { type: "stdio", command: "uvx", args: ["mcp-server-fetch"], envFile: "${workspaceFolder}/.env" },
    },
    skipped: [{ key: "servers.fetch.dev", why: "no toolgate key means this" }],
    notes: [
      'input "github-token" (GitHub PAT): read from the environment as ${GITHUB_TOKEN} (set GITHUB_TOKEN; it needs --allow-env=GITHUB_TOKEN)',
    ],
  },
  {
    client: "Cursor",
    file: ".cursor/mcp.json",
    text: JSON.stringify({
      mcpServers: {
        db: {
          command: "npx",
          args: ["-y", "@bytebase/dbhub", "--dsn", "${env:DSN}"],
          env: { LOG: "${env:LOG_LEVEL}" },
        },
        remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${env:TOKEN}" } },
      },
    }),
    format: "mcpServers",
    servers: {
      db: { command: "npx", args: ["-y", "@bytebase/dbhub", "--dsn", "${env:DSN}"], env: { LOG: "${env:LOG_LEVEL}" } },
      remote: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer ${env:TOKEN}" } },
    },
    skipped: [],
  },
  {
    client: "Claude Code",
    file: ".mcp.json",
    text: JSON.stringify({
      mcpServers: {
        time: { type: "stdio", command: "uvx", args: ["mcp-server-time"], env: { TZ: "${TZ:-UTC}" } },
        api: { type: "http", url: "https://api.example.com/mcp" },
      },
    }),
    format: "mcpServers",
    servers: {
      time: { type: "stdio", command: "uvx", args: ["mcp-server-time"], env: { TZ: "${TZ:-UTC}" } },
      api: { type: "http", url: "https://api.example.com/mcp" },
    },
    skipped: [],
  },
  {
    client: "Claude Desktop",
    file: "claude_desktop_config.json",
    text: JSON.stringify({
      globalShortcut: "Ctrl+Space",
      mcpServers: { filesystem: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] } },
      preferences: { menuBarEnabled: false },
    }),
    format: "mcpServers",
    servers: { filesystem: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] } },
    skipped: [
      { key: "globalShortcut", why: IMPORTANT },
      { key: "preferences", why: IMPORTANT },
    ],
  },
  {
    client: "Codex",
    file: "config.toml",
    text: `model = "o3"
approval_policy = "on-request"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]
env = { "API_KEY" = "value" }
env_vars = ["HOME"]
startup_timeout_sec = 20
tool_timeout_sec = 60
enabled_tools = ["search"]
disabled_tools = ["delete"]
scopes = ["read"]

[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"
bearer_token_env_var = "FIGMA_TOKEN"
http_headers = { "X-Region" = "eu" }
env_http_headers = { "X-Team" = "FIGMA_TEAM" }
enabled = false
`,
    format: "codex",
    servers: {
      docs: {
        command: "npx",
        args: ["-y", "docs-mcp"],
        env: { API_KEY: "value" },
        inherit_env: ["HOME"],
        connect_timeout_secs: 20,
        timeout_secs: 60,
        include: ["search"],
        exclude: ["delete"],
      },
      figma: {
        url: "https://mcp.figma.com/mcp",
        disabled: true,
        headers: { Authorization: "Bearer ${FIGMA_TOKEN}", "X-Region": "eu", "X-Team": "${FIGMA_TEAM}" },
        type: "http",
      },
    },
    skipped: [
      { key: "model", why: IMPORTANT },
      { key: "approval_policy", why: IMPORTANT },
      { key: "mcp_servers.docs.scopes", why: "no toolgate key means this" },
    ],
    notes: [
      'mcp_servers.figma.bearer_token_env_var: sent as "Authorization: Bearer ${FIGMA_TOKEN}" (needs --allow-env=FIGMA_TOKEN)',
    ],
  },
  {
    client: "Zed",
    file: "settings.json",
    text: `{
  "theme": "One Dark",
  "context_servers": {
    "pg": { "source": "custom", "command": "npx", "args": ["-y", "pg-mcp"], "env": {} },
    "old": { "command": { "path": "/usr/bin/node", "args": ["server.js"], "env": { "A": "1" } }, "settings": {} }
  }
}`,
    format: "zed",
    servers: {
      pg: { command: "npx", args: ["-y", "pg-mcp"], env: {} },
      old: { command: "/usr/bin/node", args: ["server.js"], env: { A: "1" } },
    },
    skipped: [
      { key: "theme", why: IMPORTANT },
      { key: "context_servers.pg.source", why: "no toolgate key means this" },
      { key: "context_servers.old.settings", why: "no toolgate key means this" },
    ],
  },
  {
    client: "Windsurf",
    file: "mcp_config.json",
    text: JSON.stringify({
      mcpServers: {
        remote: { serverUrl: "https://mcp.example.com/sse", headers: { "X-Key": "${env:KEY}" } },
        local: { command: "npx", args: ["-y", "x-mcp"], disabled: true },
      },
    }),
    format: "mcpServers",
    servers: {
      remote: { url: "https://mcp.example.com/sse", headers: { "X-Key": "${env:KEY}" } },
      local: { command: "npx", args: ["-y", "x-mcp"], disabled: true },
    },
    skipped: [],
  },
  {
    client: "Gemini CLI",
    file: ".gemini/settings.json",
    text: JSON.stringify({
      theme: "GitHub",
      mcpServers: {
        web: {
          httpUrl: "https://mcp.example.com/mcp",
          headers: { A: "b" },
          timeout: 30000,
          trust: true,
          includeTools: ["search"],
          excludeTools: ["admin"],
        },
        py: { command: "python", args: ["-m", "srv"], cwd: "./srv", trust: false },
      },
    }),
    format: "mcpServers",
    servers: {
      web: {
        type: "http",
        url: "https://mcp.example.com/mcp",
        headers: { A: "b" },
        include: ["search"],
        exclude: ["admin"],
      },
      py: { command: "python", args: ["-m", "srv"], cwd: "./srv" },
    },
    skipped: [
      { key: "theme", why: IMPORTANT },
      { key: "mcpServers.web.timeout", why: TIMEOUT },
      { key: "mcpServers.web.trust", why: "never honoured: trust in a server does not skip toolgate's approval" },
      { key: "mcpServers.py.trust", why: "never honoured: trust in a server does not skip toolgate's approval" },
    ],
  },
  {
    client: "Roo",
    file: ".roo/mcp.json",
    text: JSON.stringify({
      mcpServers: {
        r: {
          command: "node",
          args: ["server.js"],
          alwaysAllow: ["read"],
          disabled: false,
          watchPaths: ["server.js"],
          timeout: 60,
        },
      },
    }),
    format: "mcpServers",
    servers: { r: { command: "node", args: ["server.js"], disabled: false } },
    skipped: [
      { key: "mcpServers.r.alwaysAllow", why: APPROVAL },
      { key: "mcpServers.r.watchPaths", why: "toolgate restarts a server when it exits, not when files change" },
      { key: "mcpServers.r.timeout", why: TIMEOUT },
    ],
  },
  {
    client: "Cline",
    file: "cline_mcp_settings.json",
    text: JSON.stringify({
      mcpServers: {
        c: { transportType: "stdio", command: "node", args: ["s.js"], autoApprove: [], disabled: false, timeout: 60 },
        s: { transportType: "sse", url: "http://localhost:3000/sse" },
        h: { type: "streamableHttp", url: "http://localhost:3001/mcp" },
      },
    }),
    format: "mcpServers",
    servers: {
      c: { type: "stdio", command: "node", args: ["s.js"], disabled: false },
      s: { type: "sse", url: "http://localhost:3000/sse" },
      h: { type: "http", url: "http://localhost:3001/mcp" },
    },
    skipped: [
      { key: "mcpServers.c.autoApprove", why: APPROVAL },
      { key: "mcpServers.c.timeout", why: TIMEOUT },
    ],
  },
];

describe("config import", () => {
  test.each(CASES.map((c) => [c.client, c] as const))("%s", async (_, c) => {
    await using dir = tempDir();
    const source = join(dir.path, c.file);
    mkdirSync(dirname(source), { recursive: true });
    writeFileSync(source, c.text);
    const r = await run(["config", "import", c.file], { cwd: dir.path });
    const target = join(dir.path, "toolgate.json");
    const took = Object.fromEntries(Object.entries(c.servers).map(([n, e]) => [n, Object.keys(e as object)]));
    expect([r.code, json(r)]).toEqual([
      0,
      { wrote: target, from: source, format: c.format, took, skipped: c.skipped, notes: c.notes ?? [] },
    ]);
    expect(JSON.parse(readFileSync(target, "utf8"))).toEqual({ mcpServers: c.servers });
    // What it wrote is a config toolgate reads.
    const shown = await run(["config", "--json"], { cwd: dir.path });
    expect(shown.code).toBe(0);
  });

  test("an existing toolgate.json is kept unless --force; --config names another target", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, ".mcp.json"), JSON.stringify({ mcpServers: { a: { command: "x" } } }));
    writeFileSync(join(dir.path, "toolgate.json"), "{}\n");
    const kept = await run(["config", "import", ".mcp.json"], { cwd: dir.path });
    expect([kept.code, kept.stderr]).toEqual([
      2,
      `toolgate: ${join(dir.path, "toolgate.json")} exists; nothing was written\n  hint: pass --force to replace it, or --config OTHER.json to write elsewhere\n`,
    ]);
    expect(readFileSync(join(dir.path, "toolgate.json"), "utf8")).toBe("{}\n");
    expect((await run(["config", "import", ".mcp.json", "--force"], { cwd: dir.path })).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir.path, "toolgate.json"), "utf8"))).toEqual({
      mcpServers: { a: { command: "x" } },
    });
    expect((await run(["config", "import", ".mcp.json", "--config", "other.json"], { cwd: dir.path })).code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir.path, "other.json"), "utf8"))).toEqual({
      mcpServers: { a: { command: "x" } },
    });
  });

  test("a file with no server list says what it looked for (exit 5)", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "settings.json"), JSON.stringify({ theme: "x" }));
    const r = await run(["config", "import", "settings.json"], { cwd: dir.path });
    expect([r.code, r.stderr]).toEqual([
      5,
      `toolgate: ${join(dir.path, "settings.json")}: no MCP servers found: expected "mcpServers" or "servers" or "context_servers" at the top level\n`,
    ]);
  });
});
