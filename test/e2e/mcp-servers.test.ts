// End to end: MCP servers from `mcpServers` in the shape MCP clients write. Real servers:
// @modelcontextprotocol/server-everything, server-memory and server-filesystem (stdio), the fixture server,
// and a Streamable HTTP server on loopback port 0.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { json, ROOT, run, tempDir, type RunResult } from "../helpers.ts";
import { HELLO, serveMcp, type HttpMcp } from "../support/http-mcp-server.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "las", "server.ts");
const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const FILESYSTEM = join(ROOT, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js");
const MEMORY = join(ROOT, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js");
const NODE = Bun.which("node") ?? "/usr/bin/node";
const GRANT = ["--allow-run", "--approve", "all"];
const lines = (r: RunResult) =>
  r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const config = (dir: string, servers: Record<string, unknown>) =>
  writeFileSync(join(dir, "toolgate.json"), JSON.stringify({ mcpServers: servers }));
const fixture = (dir: string, name: string, extra: string[] = []) => ({
  command: process.execPath,
  args: [FIXTURE, `--pid-out=${join(dir, `${name}.pid`)}`, ...extra],
});

describe("real servers", () => {
  test("server-everything: tools become everything__<tool>; a call goes through", async () => {
    await using dir = tempDir();
    config(dir.path, { everything: { command: NODE, args: [EVERYTHING, "stdio"] } });
    const listed = await run(["tools", "--allow-run"], { cwd: dir.path });
    expect(listed.code).toBe(0);
    const names = lines(listed)
      .filter((d) => d.origin === "mcp:everything")
      .map((d) => d.name);
    expect(names).toEqual(expect.arrayContaining(["everything__echo", "everything__get-sum"]));
    const echo = await run(["call", "everything__echo", '{"message":"hi"}', ...GRANT], { cwd: dir.path });
    expect([echo.code, json(echo)]).toEqual([
      0,
      { status: "success", tool: "everything__echo", payload: { content: [{ type: "text", text: "Echo: hi" }] } },
    ]);
    const sum = await run(["call", "everything__get-sum", '{"a":2,"b":3}', ...GRANT], { cwd: dir.path });
    expect(json(sum).payload.content[0].text).toContain("5");
  });

  test("server-memory: entities written by one call are read by the next (its file lies where env says)", async () => {
    await using dir = tempDir();
    const store = join(dir.path, "memory.jsonl");
    config(dir.path, { memory: { command: NODE, args: [MEMORY], env: { MEMORY_FILE_PATH: store } } });
    const entity = { name: "gauge", entityType: "instrument", observations: ["reads 3 bar"] };
    const made = await run(["call", "memory__create_entities", JSON.stringify({ entities: [entity] }), ...GRANT], {
      cwd: dir.path,
    });
    expect([made.code, json(made).status]).toEqual([0, "success"]);
    expect(existsSync(store)).toBe(true);
    const graph = await run(["call", "memory__read_graph", "{}", ...GRANT], { cwd: dir.path });
    expect([graph.code, JSON.parse(json(graph).payload.content[0].text)]).toEqual([
      0,
      { entities: [entity], relations: [] },
    ]);
    const bad = await run(["call", "memory__create_entities", '{"entities":[{"name":"x"}]}', ...GRANT], {
      cwd: dir.path,
    });
    expect([bad.code, json(bad).error_code]).toEqual([1, "args.invalid"]);
  });

  test("server-filesystem answers with absolute paths: the boundary rejects such results whole", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "note.txt"), "plain text\n");
    config(dir.path, { fs: { command: NODE, args: [FILESYSTEM, dir.path] } });
    const listing = await run(["call", "fs__list_allowed_directories", "{}", ...GRANT], { cwd: dir.path });
    expect([listing.code, json(listing)]).toEqual([1, { status: "failed", error_code: "sensitive_output_rejected" }]);
    // The server's start has its own row (server_started) before the call's.
    const row = lines(await run(["log", "--json"], { cwd: dir.path })).find(
      (r: { tool: string }) => r.tool === "fs__list_allowed_directories",
    );
    expect(JSON.parse(row.detail)).toMatchObject({ rule: "local_path" });
    // A result without a local path passes: the file's own text.
    const read = await run(
      ["call", "fs__read_text_file", JSON.stringify({ path: join(dir.path, "note.txt") }), ...GRANT],
      { cwd: dir.path },
    );
    expect(json(read)).toEqual({
      status: "success",
      tool: "fs__read_text_file",
      payload: { content: [{ type: "text", text: "plain text\n" }], structuredContent: { content: "plain text\n" } },
    });
  });
});

describe("a cold call's server start", () => {
  test("begins once the call passed permissions and approval: its server_started row, then the call's own row", async () => {
    await using dir = tempDir();
    config(dir.path, { a: fixture(dir.path, "a") });
    expect((await run(["tools", "--allow-run"], { cwd: dir.path })).code).toBe(0); // the catalog cache, warm
    const rows = () => {
      const db = new Database(join(dir.path, ".toolgate", "toolgate.db"), { readonly: true });
      try {
        return db.query("SELECT tool, status FROM journal ORDER BY id").all() as { tool: string; status: string }[];
      } finally {
        db.close();
      }
    };
    const before = rows().length;
    // Refused at approval, invalid arguments: no start, no row of a start.
    expect((await run(["call", "a__echo__echo", '{"message":"hi"}', "--allow-run"], { cwd: dir.path })).code).toBe(4);
    expect((await run(["call", "a__echo__echo", '{"message":7}', ...GRANT], { cwd: dir.path })).code).toBe(1);
    expect(
      rows()
        .slice(before)
        .map((r) => r.tool),
    ).toEqual(["a__echo__echo", "a__echo__echo"]);
    // The start (its row, then the spawn) overlaps the call's row, which still comes before the call itself.
    const ok = await run(["call", "a__echo__echo", '{"message":"hi"}', ...GRANT], { cwd: dir.path });
    expect([ok.code, json(ok).status]).toEqual([0, "success"]);
    expect(rows().slice(before + 2)).toEqual([
      { tool: "mcp.connect:a", status: "started" },
      { tool: "a__echo__echo", status: "success" },
    ]);
  });
});

describe("the mcpServers block", () => {
  test("a block pasted from another client works; disabled servers are skipped", async () => {
    await using dir = tempDir();
    config(dir.path, {
      a: {
        type: "stdio",
        ...fixture(dir.path, "a"),
        env: {},
        autoApprove: ["x"],
        alwaysAllow: [],
        timeout: 60,
        disabled: false,
      },
      off: { ...fixture(dir.path, "off"), disabled: true },
    });
    const r = await run(["tools", "--allow-run"], { cwd: dir.path });
    expect(r.code).toBe(0);
    expect(lines(r).some((d) => d.name === "a__echo__echo")).toBe(true);
    expect(lines(r).some((d) => d.origin === "mcp:off")).toBe(false);
    expect(existsSync(join(dir.path, "off.pid"))).toBe(false);
  });

  test("a key no known client uses is a config error naming it", async () => {
    await using dir = tempDir();
    config(dir.path, { a: { ...fixture(dir.path, "a"), autoapprove: true } });
    const r = await run(["tools"], { cwd: dir.path });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("mcpServers.a.autoapprove");
  });

  test("include and exclude filter a server's tools", async () => {
    await using dir = tempDir();
    config(dir.path, {
      a: { ...fixture(dir.path, "a"), include: ["echo__*", "finance__balance"], exclude: ["echo__leak_*"] },
    });
    const names = lines(await run(["tools", "--allow-run"], { cwd: dir.path }))
      .filter((d) => d.origin === "mcp:a")
      .map((d) => d.name);
    expect(names).toContain("a__finance__balance");
    expect(names).toContain("a__echo__echo");
    expect(names.some((n) => n.includes("leak") || n.includes("skarbiec"))).toBe(false);
  });

  test('"${NAME}" takes NAME from the parent (with --allow-env=NAME) and makes it a secret: redacted from results and the journal', async () => {
    await using dir = tempDir();
    config(dir.path, { a: { ...fixture(dir.path, "a"), env: { API_TOKEN_FOR_CHILD: "${MY_SECRET}" } } });
    const secret = "s3cr3t-value-42";
    const r = await run(
      ["call", "a__echo__echo", JSON.stringify({ message: `token ${secret}` }), ...GRANT, "--allow-env=MY_SECRET"],
      { cwd: dir.path, env: { MY_SECRET: secret } },
    );
    expect(json(r)).toEqual({
      status: "success",
      tool: "a__echo__echo",
      payload: { content: [{ type: "text", text: "token [REDACTED]" }] },
    });
    const log = await run(["log", "--json"], { cwd: dir.path });
    expect(log.stdout).not.toContain(secret);
  });

  test("a failing server is shown with its reason without failing the boot, remembered for 30 s; required fails the boot", async () => {
    await using dir = tempDir();
    config(dir.path, { a: fixture(dir.path, "a"), broken: { command: "/bin/false" } });
    const first = await run(["tools", "--allow-run"], { cwd: dir.path });
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/mcp:broken failed: /);
    expect(lines(first).some((d) => d.name === "a__echo__echo")).toBe(true);
    const second = await run(["tools", "--allow-run"], { cwd: dir.path });
    expect(second.stderr).toContain("mcp:broken failed (remembered, retried after 30 s)");
    config(dir.path, { a: fixture(dir.path, "a"), broken: { command: "/bin/false", required: true } });
    const required = await run(["tools", "--allow-run"], { cwd: dir.path });
    expect(required.code).toBe(5);
    expect(required.stderr).toContain('required MCP server "broken" failed');
  });

  test("connecting needs the run permission: without it nothing is spawned and the flag is named", async () => {
    await using dir = tempDir();
    config(dir.path, { a: fixture(dir.path, "a") });
    const r = await run(["tools"], { cwd: dir.path });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`--allow-run=${process.execPath}`);
    expect(existsSync(join(dir.path, "a.pid"))).toBe(false);
  });

  test("a call of an MCP tool starts only that tool's server", async () => {
    await using dir = tempDir();
    config(dir.path, { a: fixture(dir.path, "a"), b: fixture(dir.path, "b") });
    expect((await run(["tools", "--allow-run"], { cwd: dir.path })).code).toBe(0);
    const [pa, pb] = [readFileSync(join(dir.path, "a.pid"), "utf8"), readFileSync(join(dir.path, "b.pid"), "utf8")];
    expect((await run(["call", "a__echo__echo", '{"message":"x"}', ...GRANT], { cwd: dir.path })).code).toBe(0);
    expect(readFileSync(join(dir.path, "a.pid"), "utf8")).not.toBe(pa);
    expect(readFileSync(join(dir.path, "b.pid"), "utf8")).toBe(pb);
  });
});

describe("Streamable HTTP", () => {
  let server: HttpMcp;
  beforeAll(() => {
    server = serveMcp({
      tools: [{ ...HELLO, inputSchema: { type: "object", properties: { who: { type: "string" } } } }],
      call: (r) => ({ content: [{ type: "text", text: `hello ${(r.params.arguments as { who?: string })?.who}` }] }),
    });
  });
  afterAll(() => server.stop());

  test("lists and calls over HTTP with the net grant for its host; without it, names the flag", async () => {
    await using dir = tempDir();
    const hostPort = `127.0.0.1:${server.port}`;
    config(dir.path, { web: { type: "http", url: `http://${hostPort}/mcp` } });
    const denied = await run(["tools"], { cwd: dir.path });
    expect(denied.stderr).toContain(`--allow-net=${hostPort}`);
    const r = await run(["call", "web__hello", '{"who":"you"}', `--allow-net=${hostPort}`, "--approve", "all"], {
      cwd: dir.path,
    });
    expect([r.code, json(r)]).toEqual([
      0,
      { status: "success", tool: "web__hello", payload: { content: [{ type: "text", text: "hello you" }] } },
    ]);
  });
});
