// What a server that missed its connect timeout is told: the key that sets it, and for a package
// runner why a first start may need longer (the e2e is test/e2e/mcp-connect-timeout.test.ts).
import { describe, expect, test } from "bun:test";
import { connectTimeoutMessage } from "../../src/servers/list.ts";
import type { RemoteSpec } from "../../src/servers/specs.ts";

const spec = (over: Partial<RemoteSpec>): RemoteSpec => ({
  name: "srv",
  origin: "mcp:srv",
  kind: "mcp",
  transport: { kind: "stdio", argv: ["/usr/bin/node", "x.js"], cwd: "/w", values: {}, secrets: {} },
  needs: [],
  network: false,
  pin: false,
  connectTimeoutMs: 30_000,
  timeoutMs: 1000,
  graceMs: 0,
  required: false,
  ...over,
});

describe("connectTimeoutMessage", () => {
  test("an MCP server: the seconds and mcpServers.NAME.connect_timeout_secs", () => {
    expect(connectTimeoutMessage(spec({}))).toBe(
      "no answer within the connect timeout (30 s); raise mcpServers.srv.connect_timeout_secs",
    );
    expect(
      connectTimeoutMessage(spec({ transport: { kind: "http", url: "http://h/mcp", headers: {}, secrets: {} } })),
    ).toBe("no answer within the connect timeout (30 s); raise mcpServers.srv.connect_timeout_secs");
  });
  test.each(["npx", "uvx", "bunx", "pnpx", "pipx"])(
    "a package runner (%s, by its path) also says a first start may need longer",
    (runner) => {
      const m = connectTimeoutMessage(
        spec({
          connectTimeoutMs: 5_000,
          transport: {
            kind: "stdio",
            argv: [`/home/u/.local/bin/${runner}`, "-y", "pkg"],
            cwd: "/w",
            values: {},
            secrets: {},
          },
        }),
      );
      expect(m).toBe(
        `no answer within the connect timeout (5 s); raise mcpServers.srv.connect_timeout_secs: a first \`${runner}\` start downloads (and may build) the package before the server answers and can need longer, e.g. "connect_timeout_secs": 120`,
      );
    },
  );
  test("Las names its own keys", () => {
    expect(connectTimeoutMessage(spec({ name: "las", kind: "las", origin: "las", connectTimeoutMs: 120_000 }))).toBe(
      "no answer within the connect timeout (120 s: las.timeout_secs, or SINGULARITY_MCP_TIMEOUT_SECS)",
    );
  });
});
