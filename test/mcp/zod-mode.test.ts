// How zod runs the MCP SDK's schemas: a one-shot process has them interpreted (no parser compiled
// first, src/mcp/session.ts), a long-running one (src/result/lifetime.ts) keeps the compiled
// parsers. Each case in a process of its own, connecting to the fixture Las, a real stdio server.
// Full suite only: each case in a process of its own, connecting to a real server.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");
const FIXTURE = join(import.meta.dir, "..", "fixtures", "las", "server.ts");

async function zodMode(longRunning: boolean): Promise<string> {
  const code = `
import { childEnv } from "./src/launcher/env.ts";
import { connectTarget } from "./src/mcp/connect.ts";
import { StreamRedactor } from "./src/boundary/redact.ts";
import { markLongRunning } from "./src/result/lifetime.ts";
if (${longRunning}) markLongRunning();
const env = childEnv({ parent: {}, values: {} });
if (!env.ok) throw new Error("env");
const c = await connectTarget({ kind: "stdio", name: "las", argv: [process.execPath, ${JSON.stringify(FIXTURE)}], env: env.value, cwd: ${JSON.stringify(ROOT)} }, { pin: true, connectTimeoutMs: 10_000, requestTimeoutMs: 10_000, version: "test", redactor: (s) => new StreamRedactor(s) });
const listed = c.tools.length > 0;
await c.close(1000);
process.stdout.write(JSON.stringify({ listed, jitless: globalThis.__zod_globalConfig?.jitless === true }));
`;
  const p = Bun.spawn([process.execPath, "-e", code], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const [out, err, exit] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  if (exit !== 0) throw new Error(err);
  return out;
}

describe("zod's mode for the MCP SDK", () => {
  test("a one-shot process interprets the schemas; a long-running one compiles them", async () => {
    expect(JSON.parse(await zodMode(false))).toEqual({ listed: true, jitless: true });
    expect(JSON.parse(await zodMode(true))).toEqual({ listed: true, jitless: false });
  });
});
