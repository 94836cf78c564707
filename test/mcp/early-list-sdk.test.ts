// The early tools/list (EarlyInitialized, src/mcp/handshake.ts) against servers built with the SDK's
// own server classes: one that registers its tool as the initialized notification arrives (the list
// is right behind it on the pipe), and one that lists on three pages. A stdio connect lists what the
// SDK's Client lists from the same server, and a call goes through.
// Full suite only: servers built with the SDK, each a child process.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamRedactor } from "../../src/boundary/redact.ts";
import { childEnv } from "../../src/launcher/env.ts";
import { connectTarget } from "../../src/mcp/connect.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "mcp", "sdk-listing.ts");
const opts = {
  pin: false,
  connectTimeoutMs: 10_000,
  requestTimeoutMs: 10_000,
  version: "test",
  redactor: (s: readonly string[]) => new StreamRedactor(s),
};

/** Every page the SDK's Client lists, names only. */
async function viaSdk(mode: string): Promise<string[]> {
  const client = new Client({ name: "sdk-reference", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [FIXTURE, mode],
      cwd: import.meta.dir,
      stderr: "ignore",
    }),
  );
  try {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);
    return names;
  } finally {
    await client.close();
  }
}

describe("the early tools/list against the SDK's own servers", () => {
  test.each([
    ["oninit", "greet", { who: "x" }, "hello x"],
    ["paged", "t5", {}, "called t5"],
  ])("%s: listed as the SDK's Client lists it; a call goes through", async (mode, tool, args, text) => {
    const env = childEnv({ parent: {}, values: {} });
    if (!env.ok) throw new Error(env.refusal.message);
    const c = await connectTarget(
      { kind: "stdio", name: mode, argv: [process.execPath, FIXTURE, mode], env: env.value, cwd: import.meta.dir },
      opts,
    );
    try {
      const listed = c.tools.map((t) => t.name);
      expect(listed).toEqual(await viaSdk(mode));
      expect(listed).toContain(tool);
      expect(await c.session.callTool(tool, args, { timeoutMs: 5000 })).toEqual({
        ok: true,
        result: { content: [{ type: "text", text }] },
      });
    } finally {
      await c.close(1000);
    }
  });
});
