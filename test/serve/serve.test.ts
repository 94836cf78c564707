// End to end: dist/toolgate serve over stdio, driven by the SDK's Client. The served list is the
// catalog (schemas, annotations, toolgate's facts), every call runs the pipeline and is journaled,
// refusals are isError with their code, approvals come from --approve or the client's elicitation,
// --child and --profile narrow, and MCP-sourced results pass through as the server's own.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolListChangedNotificationSchema, type ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { json, ROOT, run, tempDir } from "../helpers.ts";
import { journal, serve, site, textJson } from "./client.ts";

const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const NODE = Bun.which("node") ?? "/usr/bin/node";



describe("tools/list", () => {
  test("the catalog as `tools` shows it: the same schemas, annotations from the effect class, toolgate's facts under _meta", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serve([], { cwd: s.ws, home: s.home });
    const { tools } = await served.client.listTools();
    const listed = (await run(["tools", "--json"], { cwd: s.ws, env: { HOME: s.home } })).stdout.trim().split("\n").map((l) => JSON.parse(l));
    expect(tools.map((t) => t.name)).toEqual(listed.map((d) => d.name));
    const read = tools.find((t) => t.name === "file_read")!;
    const full = json(await run(["tools", "file_read", "--json"], { cwd: s.ws, env: { HOME: s.home } }));
    expect(read).toEqual({
      name: "file_read",
      description: full.description,
      inputSchema: full.inputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
      _meta: { toolgate: { name: "file_read", origin: "builtin", effect: "read", approval: "required", digest: full.digest.slice(0, 12) } },
    });
    expect(tools.find((t) => t.name === "bash")!.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false });
    expect(tools.find((t) => t.name === "plan")!.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
  });
});

describe("tools/call runs the pipeline", () => {
  test("a success is the payload as text and structuredContent, and one journal row", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serve(["--allow-read", "--approve", "file_read"], { cwd: s.ws, home: s.home });
    const r = await served.client.callTool({ name: "file_read", arguments: { path: "a.txt" } });
    const cold = json(await run(["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"], { cwd: s.ws, env: { HOME: s.home } }));
    expect(r.isError).toBeUndefined();
    expect(textJson(r)).toEqual(cold.payload);
    expect(r.structuredContent).toEqual(cold.payload);
    expect(r._meta).toEqual({ toolgate: { status: "success" } });
    await served.close();
    const rows = await journal(s.ws, s.home);
    expect(rows.map((x) => [x.tool, x.status])).toEqual([["file_read", "success"], ["file_read", "success"]]);
  });

  test("a refusal is isError with the envelope and its code; the row says so", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serve(["--approve", "file_read"], { cwd: s.ws, home: s.home });
    const r = await served.client.callTool({ name: "file_read", arguments: { path: "a.txt" } });
    expect(r.isError).toBe(true);
    expect(r._meta).toEqual({ toolgate: { status: "failed", error_code: "permission.denied" } });
    expect(textJson(r)).toMatchObject({ status: "failed", tool: "file_read", error_code: "permission.denied" });
    const bad = await served.client.callTool({ name: "file_read", arguments: { path: 7 } });
    expect(bad._meta).toEqual({ toolgate: { status: "failed", error_code: "args.invalid" } });
    const none = await served.client.callTool({ name: "no_such_tool", arguments: {} });
    expect(none._meta).toEqual({ toolgate: { status: "failed", error_code: "unknown_tool" } });
    await served.close();
    expect((await journal(s.ws, s.home)).map((x) => x.error_code)).toEqual(["permission.denied", "args.invalid", "unknown_tool"]);
  });

  test("a client without elicitation: approval.required says to start serve with --approve", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serve(["--allow-read"], { cwd: s.ws, home: s.home });
    const r = await served.client.callTool({ name: "file_read", arguments: { path: "a.txt" } });
    expect(r._meta).toEqual({ toolgate: { status: "failed", error_code: "approval.required" } });
    expect(textJson(r).message).toContain("start toolgate serve with --approve file_read");
  });

  test("permissions are never asked: a terminal is not used even when one exists", async () => {
    await using root = tempDir();
    const s = site(root.path);
    // CI unset and no --no-prompt: serve still asks nobody, the flag decides.
    await using served = await serve([], { cwd: s.ws, home: s.home, env: { CI: "" } });
    const r = await served.client.callTool({ name: "file_read", arguments: { path: "a.txt" } });
    expect(r._meta).toMatchObject({ toolgate: { error_code: "permission.denied" } });
  });
});

describe("approval through the client's elicitation", () => {
  const question = (answers: string[], asked: ElicitRequest[]) => (req: ElicitRequest) => {
    asked.push(req);
    const a = answers.shift();
    return a === "decline" ? { action: "decline" as const } : { action: "accept" as const, content: { approve: a! } };
  };

  test("once runs this call and asks again next time; decline refuses approval.denied", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const asked: ElicitRequest[] = [];
    await using served = await serve(["--allow-read"], { cwd: s.ws, home: s.home, elicit: question(["once", "decline"], asked) });
    const first = await served.client.callTool({ name: "file_read", arguments: { path: "a.txt" } });
    expect(first.isError).toBeUndefined();
    const second = await served.client.callTool({ name: "file_read", arguments: { path: "a.txt" } });
    expect(second._meta).toEqual({ toolgate: { status: "failed", error_code: "approval.denied" } });
    expect(asked).toHaveLength(2);
    const message = asked[0]!.params.message;
    expect(message).toContain("file_read needs approval");
    expect(message).toContain("Effect: read.");
    expect(message).toMatch(/Digest: [0-9a-f]{12}\./);
    expect(message).toContain('"path": "a.txt"');
  });

  test("always is remembered for the digest: not asked again, also by the next serve (stdio is the user's own session)", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const asked: ElicitRequest[] = [];
    {
      await using served = await serve(["--allow-read"], { cwd: s.ws, home: s.home, elicit: question(["always"], asked) });
      for (let i = 0; i < 3; i++) expect((await served.client.callTool({ name: "file_read", arguments: { path: "a.txt" } })).isError).toBeUndefined();
    }
    await using again = await serve(["--allow-read"], { cwd: s.ws, home: s.home, elicit: question([], asked) });
    expect((await again.client.callTool({ name: "file_read", arguments: { path: "a.txt" } })).isError).toBeUndefined();
    expect(asked).toHaveLength(1);
  });

  test("a long argument is previewed, bounded, with the whole's sha256", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const asked: ElicitRequest[] = [];
    await using served = await serve(["--allow-write"], { cwd: s.ws, home: s.home, elicit: question(["decline"], asked) });
    await served.client.callTool({ name: "file_write", arguments: { path: "b.txt", content: `${"x".repeat(5_000)}TAIL` } });
    const message = asked[0]!.params.message;
    expect(message.length).toBeLessThan(2_600);
    expect(message).toMatch(/more characters not shown; the whole arguments have sha256 [0-9a-f]{64}/);
  });
});

describe("--child and --profile narrow", () => {
  test("--child: approval-required tools are not offered unless --approve covers them, and a call by name is approval.child_unattended", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const asked: ElicitRequest[] = [];
    await using served = await serve(["--child", "--allow-read", "--approve", "file_read"], { cwd: s.ws, home: s.home, elicit: (r) => (asked.push(r), { action: "accept", content: { approve: "once" } }) });
    const names = (await served.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(["desk", "file_read", "plan", "task_control", "task_list", "task_status", "yield_until"]);
    expect((await served.client.callTool({ name: "file_read", arguments: { path: "a.txt" } })).isError).toBeUndefined();
    const find = await served.client.callTool({ name: "file_find", arguments: {} });
    expect(find._meta).toEqual({ toolgate: { status: "failed", error_code: "approval.child_unattended" } });
    expect(asked).toEqual([]);
  });

  test("--profile scout: file_write is neither listed nor callable by name", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serve(["--profile", "scout", "--allow-all", "--approve", "all"], { cwd: s.ws, home: s.home });
    const names = (await served.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(["desk", "file_find", "file_read", "file_search", "plan", "skill_list", "skill_load"]);
    const w = await served.client.callTool({ name: "file_write", arguments: { path: "b.txt", content: "x" } });
    expect(w._meta).toEqual({ toolgate: { status: "failed", error_code: "profile.excluded" } });
    const desk = await served.client.callTool({ name: "desk", arguments: { text: "x" } });
    expect(desk._meta).toEqual({ toolgate: { status: "failed", error_code: "profile.excluded" } });
  });

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
    writeFileSync(join(s.ws, "toolgate.json"), JSON.stringify({ mcpServers: { everything: { command: NODE, args: [EVERYTHING, "stdio"] } } }));
    await using served = await serve(["--allow-run", "--approve", "all"], { cwd: s.ws, home: s.home });
    const echo = await served.client.callTool({ name: "everything__echo", arguments: { message: "hi" } });
    expect(echo).toEqual({ content: [{ type: "text", text: "Echo: hi" }], _meta: { toolgate: { status: "success" } } });
    const structured = await served.client.callTool({ name: "everything__get-structured-content", arguments: { location: "New York" } });
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
    writeFileSync(join(s.ws, "toolgate.json"), JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [fixture, `--pid-out=${pidFile}`, `--calls-out=${callsFile}`] } } }));
    await using served = await serve(["--allow-run", "--approve", "all"], { cwd: s.ws, home: s.home });
    let changed = 0;
    served.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    expect((await served.client.callTool({ name: "fx__echo__echo", arguments: { message: "one" } })).isError).toBeUndefined();
    const first = Number(readFileSync(pidFile, "utf8"));
    const hanging = served.client.callTool({ name: "fx__echo__hang", arguments: {} });
    for (let i = 0; i < 200 && !readFileSync(callsFile, "utf8").includes("echo__hang"); i++) await Bun.sleep(25);
    process.kill(first, "SIGKILL");
    const lost = await hanging;
    expect(lost._meta).toEqual({ toolgate: { status: "indeterminate", error_code: "transport_lost" } });
    // Restarted (a new pid), and the tools serve again; clients were told twice (down, back).
    for (let i = 0; i < 400 && (changed < 2 || Number(readFileSync(pidFile, "utf8")) === first); i++) await Bun.sleep(25);
    expect(changed).toBeGreaterThanOrEqual(2);
    expect(Number(readFileSync(pidFile, "utf8"))).not.toBe(first);
    expect((await served.client.callTool({ name: "fx__echo__echo", arguments: { message: "two" } })).isError).toBeUndefined();
    // The lost call was never replayed on the new child.
    expect(readFileSync(callsFile, "utf8").split("\n").filter((l) => l === "echo__hang")).toHaveLength(1);
    expect(served.stderr()).toContain("fx");
  }, 30_000);
});

describe("served names", () => {
  test("a 70-character name is served shortened within the budget, and a call by the served name reaches it", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const fixture = join(ROOT, "test", "fixtures", "serve", "long-name.ts");
    writeFileSync(join(s.ws, "toolgate.json"), JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [fixture] } } }));
    const full = "fx__reconcile_every_ledger_entry_against_the_bank_statement_for_period";
    expect(full).toHaveLength(70);
    await using served = await serve(["--allow-run", "--approve", "all"], { cwd: s.ws, home: s.home });
    const tool = (await served.client.listTools()).tools.find((t) => (t._meta as any).toolgate.name === full)!;
    expect(tool.name.length).toBeLessThanOrEqual(44);
    expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    // The same mapping `tools --served` shows.
    const mapped = (await run(["tools", "--served", "--allow-run"], { cwd: s.ws, env: { HOME: s.home } })).stdout.trim().split("\n").map((l) => JSON.parse(l)).find((d) => d.name === full);
    expect(mapped.served).toBe(tool.name);
    const r = await served.client.callTool({ name: tool.name, arguments: { period: "2026-11" } });
    expect(r).toEqual({ content: [{ type: "text", text: "period 2026-11" }], _meta: { toolgate: { status: "success" } } });
    // The catalog name still reaches the same entry (no served name can equal it: it breaks the budget).
    expect((await served.client.callTool({ name: full, arguments: { period: "x" } })).content).toEqual([{ type: "text", text: "period x" }]);
    await using narrow = await serve(["--allow-run", "--approve", "all", "--name-budget", "20"], { cwd: s.ws, home: s.home });
    expect((await narrow.client.listTools()).tools.every((t) => t.name.length <= 20)).toBe(true);
  });

  test("an authored tool's 70-character name boots, is served within the budget, and a call by the served name runs it", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const full = "reconcile_every_ledger_entry_against_the_bank_statement_for_the_period";
    expect(full).toHaveLength(70);
    const dir = join(s.ws, "tools", "reconcile");
    mkdirSync(dir, { recursive: true });
    const input_schema = { type: "object", properties: { period: { type: "string" } }, required: ["period"], additionalProperties: false };
    writeFileSync(join(dir, "tool.json"), JSON.stringify({ name: full, description: "Echoes its period.", input_schema, effect: "read" }));
    writeFileSync(join(dir, "run"), "#!/bin/sh\ncat\n", { mode: 0o755 });
    await using served = await serve(["--allow-run", "--approve", "all"], { cwd: s.ws, home: s.home });
    const tool = (await served.client.listTools()).tools.find((t) => (t._meta as any).toolgate.name === full)!;
    // The default budget, 44: a 35-character stem, "_" and 8 hex of the whole name.
    expect(tool.name).toBe(`${full.slice(0, 35)}_${new Bun.CryptoHasher("sha256").update(full).digest("hex").slice(0, 8)}`);
    const r = await served.client.callTool({ name: tool.name, arguments: { period: "2026-11" } });
    expect([r.isError, r.structuredContent]).toEqual([undefined, { period: "2026-11" }]);
  });
});
