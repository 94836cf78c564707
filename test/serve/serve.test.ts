// End to end: dist/toolgate serve over stdio, driven by the SDK's Client: an unknown profile is exit
// 2, MCP-sourced results pass through as the server's own, a supervised child's death and restart
// reach the client, and long names are served shortened. What needs no process of its own (the
// served list, the pipeline per call, approvals, --child and --profile) is in protocol.test.ts.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { ROOT, run, tempDir } from "../helpers.ts";
import { serve, site } from "./client.ts";

const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const NODE = Bun.which("node") ?? "/usr/bin/node";

describe("--profile", () => {
  test("an unknown profile is a usage error listing the known ones", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const r = await run(["serve", "--profile", "nope"], { cwd: s.ws, env: { HOME: s.home } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("scout");
  });
});

describe("an MCP server's results pass through as its own", () => {
  test("server-everything: content and structuredContent as the server sent them", async () => {
    await using root = tempDir();
    const s = site(root.path);
    writeFileSync(
      join(s.ws, "toolgate.json"),
      JSON.stringify({ mcpServers: { everything: { command: NODE, args: [EVERYTHING, "stdio"] } } }),
    );
    await using served = await serve(["--allow-run", "--approve", "all"], { cwd: s.ws, home: s.home });
    const echo = await served.client.callTool({ name: "everything__echo", arguments: { message: "hi" } });
    expect(echo).toEqual({ content: [{ type: "text", text: "Echo: hi" }], _meta: { toolgate: { status: "success" } } });
    const structured = await served.client.callTool({
      name: "everything__get-structured-content",
      arguments: { location: "New York" },
    });
    expect(structured.structuredContent).toMatchObject({ temperature: expect.any(Number) });
    expect(structured.isError).toBeUndefined();
  });
});

describe("supervised sources", () => {
  test("a killed MCP child: the call in flight is indeterminate (not replayed), clients hear list_changed, the child is restarted and serves again", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const pidFile = join(root.path, "fx.pid");
    const callsFile = join(root.path, "calls.txt");
    const fixture = join(ROOT, "test", "fixtures", "las", "server.ts");
    writeFileSync(
      join(s.ws, "toolgate.json"),
      JSON.stringify({
        mcpServers: {
          fx: { command: process.execPath, args: [fixture, `--pid-out=${pidFile}`, `--calls-out=${callsFile}`] },
        },
      }),
    );
    await using served = await serve(["--allow-run", "--approve", "all"], { cwd: s.ws, home: s.home });
    let changed = 0;
    served.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    expect(
      (await served.client.callTool({ name: "fx__echo__echo", arguments: { message: "one" } })).isError,
    ).toBeUndefined();
    const first = Number(readFileSync(pidFile, "utf8"));
    const hanging = served.client.callTool({ name: "fx__echo__hang", arguments: {} });
    for (let i = 0; i < 200 && !readFileSync(callsFile, "utf8").includes("echo__hang"); i++) await Bun.sleep(25);
    process.kill(first, "SIGKILL");
    const lost = await hanging;
    expect(lost._meta).toEqual({ toolgate: { status: "indeterminate", error_code: "transport_lost" } });
    // Restarted (a new pid), and the tools serve again; clients were told twice (down, back).
    for (let i = 0; i < 400 && (changed < 2 || Number(readFileSync(pidFile, "utf8")) === first); i++)
      await Bun.sleep(25);
    expect(changed).toBeGreaterThanOrEqual(2);
    expect(Number(readFileSync(pidFile, "utf8"))).not.toBe(first);
    expect(
      (await served.client.callTool({ name: "fx__echo__echo", arguments: { message: "two" } })).isError,
    ).toBeUndefined();
    // The lost call was never replayed on the new child.
    expect(
      readFileSync(callsFile, "utf8")
        .split("\n")
        .filter((l) => l === "echo__hang"),
    ).toHaveLength(1);
    expect(served.stderr()).toContain("fx");
  }, 30_000);
});

describe("served names", () => {
  test("a 70-character name is served shortened within the budget, and a call by the served name reaches it", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const fixture = join(ROOT, "test", "fixtures", "serve", "long-name.ts");
    writeFileSync(
      join(s.ws, "toolgate.json"),
      JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [fixture] } } }),
    );
    const full = "fx__reconcile_every_ledger_entry_against_the_bank_statement_for_period";
    expect(full).toHaveLength(70);
    await using served = await serve(["--allow-run", "--approve", "all"], { cwd: s.ws, home: s.home });
    const tool = (await served.client.listTools()).tools.find((t) => (t._meta as any).toolgate.name === full)!;
    expect(tool.name.length).toBeLessThanOrEqual(44);
    expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    // The same mapping `tools --served` shows.
    const mapped = (await run(["tools", "--served", "--allow-run"], { cwd: s.ws, env: { HOME: s.home } })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((d) => d.name === full);
    expect(mapped.served).toBe(tool.name);
    const r = await served.client.callTool({ name: tool.name, arguments: { period: "2026-11" } });
    expect(r).toEqual({
      content: [{ type: "text", text: "period 2026-11" }],
      _meta: { toolgate: { status: "success" } },
    });
    // The catalog name still reaches the same entry (no served name can equal it: it breaks the budget).
    expect((await served.client.callTool({ name: full, arguments: { period: "x" } })).content).toEqual([
      { type: "text", text: "period x" },
    ]);
    await using narrow = await serve(["--allow-run", "--approve", "all", "--name-budget", "20"], {
      cwd: s.ws,
      home: s.home,
    });
    expect((await narrow.client.listTools()).tools.every((t) => t.name.length <= 20)).toBe(true);
  });

  test("an authored tool's 70-character name boots, is served within the budget, and a call by the served name runs it", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const full = "reconcile_every_ledger_entry_against_the_bank_statement_for_the_period";
    expect(full).toHaveLength(70);
    const dir = join(s.ws, "tools", "reconcile");
    mkdirSync(dir, { recursive: true });
    const input_schema = {
      type: "object",
      properties: { period: { type: "string" } },
      required: ["period"],
      additionalProperties: false,
    };
    writeFileSync(
      join(dir, "tool.json"),
      JSON.stringify({ name: full, description: "Echoes its period.", input_schema, effect: "read" }),
    );
    writeFileSync(join(dir, "run"), "#!/bin/sh\ncat\n", { mode: 0o755 });
    await using served = await serve(["--allow-run", "--approve", "all"], { cwd: s.ws, home: s.home });
    const tool = (await served.client.listTools()).tools.find((t) => (t._meta as any).toolgate.name === full)!;
    // The default budget, 44: a 35-character stem, "_" and 8 hex of the whole name.
    expect(tool.name).toBe(
      `${full.slice(0, 35)}_${new Bun.CryptoHasher("sha256").update(full).digest("hex").slice(0, 8)}`,
    );
    const r = await served.client.callTool({ name: tool.name, arguments: { period: "2026-11" } });
    expect([r.isError, r.structuredContent]).toEqual([undefined, { period: "2026-11" }]);
  });
});
