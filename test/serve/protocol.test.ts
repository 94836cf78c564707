// serve's protocol, in process (test/support/serve-in-memory.ts: the command's own start, the SDK's
// Client over its InMemoryTransport). The served list is the catalog (schemas, annotations,
// toolgate's facts), every call runs the pipeline and is journaled, refusals are isError with their
// code, approvals come from --approve or the client's elicitation, and --child and --profile narrow.
import { describe, expect, test } from "bun:test";
import type { ElicitRequest } from "@modelcontextprotocol/sdk/types.js";
import { json, run, tempDir } from "../helpers.ts";
import { serveInMemory as serve } from "../support/serve-in-memory.ts";
import { journal, site, textJson } from "./client.ts";

describe("tools/list", () => {
  test("the catalog as `tools` shows it: the same schemas, annotations from the effect class, toolgate's facts under _meta", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serve([], { cwd: s.ws, home: s.home });
    const { tools } = await served.client.listTools();
    const listed = (await run(["tools", "--json"], { cwd: s.ws, env: { HOME: s.home } })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(tools.map((t) => t.name)).toEqual(listed.map((d) => d.name));
    const read = tools.find((t) => t.name === "file_read")!;
    const full = json(await run(["tools", "file_read", "--json"], { cwd: s.ws, env: { HOME: s.home } }));
    expect(read).toEqual({
      name: "file_read",
      description: full.description,
      inputSchema: full.inputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
      _meta: {
        toolgate: {
          name: "file_read",
          origin: "builtin",
          effect: "read",
          approval: "required",
          digest: full.digest.slice(0, 12),
        },
      },
    });
    expect(tools.find((t) => t.name === "bash")!.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
    });
    expect(tools.find((t) => t.name === "plan")!.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
    });
  });
});

describe("tools/call runs the pipeline", () => {
  test("a success is the payload as text and structuredContent, and one journal row", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serve(["--allow-read", "--approve", "file_read"], { cwd: s.ws, home: s.home });
    const r = await served.client.callTool({ name: "file_read", arguments: { path: "a.txt" } });
    const cold = json(
      await run(["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"], {
        cwd: s.ws,
        env: { HOME: s.home },
      }),
    );
    expect(r.isError).toBeUndefined();
    expect(textJson(r)).toEqual(cold.payload);
    expect(r.structuredContent).toEqual(cold.payload);
    expect(r._meta).toEqual({ toolgate: { status: "success" } });
    await served.close();
    const rows = await journal(s.ws, s.home);
    expect(rows.map((x) => [x.tool, x.status])).toEqual([
      ["file_read", "success"],
      ["file_read", "success"],
    ]);
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
    expect((await journal(s.ws, s.home)).map((x) => x.error_code)).toEqual([
      "permission.denied",
      "args.invalid",
      "unknown_tool",
    ]);
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
    await using served = await serve(["--allow-read"], {
      cwd: s.ws,
      home: s.home,
      elicit: question(["once", "decline"], asked),
    });
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
      await using served = await serve(["--allow-read"], {
        cwd: s.ws,
        home: s.home,
        elicit: question(["always"], asked),
      });
      for (let i = 0; i < 3; i++)
        expect(
          (await served.client.callTool({ name: "file_read", arguments: { path: "a.txt" } })).isError,
        ).toBeUndefined();
    }
    await using again = await serve(["--allow-read"], { cwd: s.ws, home: s.home, elicit: question([], asked) });
    expect((await again.client.callTool({ name: "file_read", arguments: { path: "a.txt" } })).isError).toBeUndefined();
    expect(asked).toHaveLength(1);
  });

  test("a long argument is previewed, bounded, with the whole's sha256", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const asked: ElicitRequest[] = [];
    await using served = await serve(["--allow-write"], {
      cwd: s.ws,
      home: s.home,
      elicit: question(["decline"], asked),
    });
    await served.client.callTool({
      name: "file_write",
      arguments: { path: "b.txt", content: `${"x".repeat(5_000)}TAIL` },
    });
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
    await using served = await serve(["--child", "--allow-read", "--approve", "file_read"], {
      cwd: s.ws,
      home: s.home,
      elicit: (r) => (asked.push(r), { action: "accept", content: { approve: "once" } }),
    });
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
    await using served = await serve(["--profile", "scout", "--allow-all", "--approve", "all"], {
      cwd: s.ws,
      home: s.home,
    });
    const names = (await served.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(["desk", "file_find", "file_read", "file_search", "plan", "skill_list", "skill_load"]);
    const w = await served.client.callTool({ name: "file_write", arguments: { path: "b.txt", content: "x" } });
    expect(w._meta).toEqual({ toolgate: { status: "failed", error_code: "profile.excluded" } });
    const desk = await served.client.callTool({ name: "desk", arguments: { text: "x" } });
    expect(desk._meta).toEqual({ toolgate: { status: "failed", error_code: "profile.excluded" } });
  });
});
