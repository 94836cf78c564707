// End to end: the output boundary on results of real MCP servers. Ordinary prose, code,
// diffs and images pass; absolute paths are rejected unless the user (a flag, or a config of their
// own) switched the rule off for that one server, which the journal records; a workspace config
// cannot. The operator hears the tool, the rule and where; the model gets exactly the boundary's fixed object.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, ROOT, run, tempDir, type RunResult } from "../helpers.ts";

const ORDINARY = join(import.meta.dir, "..", "fixtures", "mcp", "ordinary.ts");
const FILESYSTEM = join(ROOT, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js");
const NODE = Bun.which("node") ?? "/usr/bin/node";
const GRANT = ["--allow-run", "--approve", "all"];
const JPEG = Buffer.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00,
  0x00, 0xff, 0xd9,
]).toString("base64");
const REJECTED = { status: "failed", error_code: "sensitive_output_rejected" };
const lines = (r: RunResult) =>
  r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const ordinary = (extra: Record<string, unknown> = {}) => ({
  mcpServers: { ord: { command: process.execPath, args: [ORDINARY], ...extra } },
});
const write = (path: string, data: unknown) => (writeFileSync(path, JSON.stringify(data)), path);
const rowOf = async (cwd: string, tool: string, flags: string[] = []) =>
  lines(await run(["log", "--json", ...flags], { cwd })).findLast((r: { tool: string }) => r.tool === tool);

describe("ordinary results pass", () => {
  test.each([
    ["ord__weather", { content: [{ type: "text", text: "Light rain / drizzle, 11 °C" }] }],
    ["ord__code", { content: [{ type: "text", text: "// comment\n/* block */\nconst r = a / b; /** doc */" }] }],
    [
      "ord__diff",
      { content: [{ type: "text", text: "--- /dev/null\n+++ b/src/new.ts\n@@ -0,0 +1 @@\n+export const x = 1;\n" }] },
    ],
    ["ord__photo", { content: [{ type: "image", data: JPEG, mimeType: "image/jpeg" }] }],
    [
      "ord__sheet",
      {
        content: [
          { type: "text", text: "<table>\n<tr><td>Pens</td><td>3</td></tr>\n</table>\n<ul>\n<li>Sheet1</li>\n</ul>" },
        ],
      },
    ],
    [
      "ord__routes",
      {
        content: [{ type: "text", text: '{"route":"/api/v1/orders"}' }],
        structuredContent: { route: "/api/v1/orders", log: '"GET /users/42 HTTP/1.1" 200' },
      },
    ],
    [
      "ord__gitdiff",
      {
        content: [
          { type: "text", text: JSON.stringify({ diff: "--- /dev/null\n+++ b/src/new.ts\n@@ -0,0 +1 @@\n+x\n" }) },
        ],
      },
    ],
  ])("%s, byte for byte", async (tool, payload) => {
    await using dir = tempDir();
    write(join(dir.path, "toolgate.json"), ordinary());
    const r = await run(["call", tool, "{}", ...GRANT], { cwd: dir.path });
    expect([r.code, json(r)]).toEqual([0, { status: "success", tool, payload }]);
  });
});

describe("absolute paths", () => {
  test("are rejected whole; stderr names the tool, the rule and where (never the value) and the flag that lifts it", async () => {
    await using dir = tempDir();
    write(join(dir.path, "toolgate.json"), ordinary());
    const r = await run(["call", "ord__lint", "{}", ...GRANT], { cwd: dir.path });
    expect([r.code, json(r)]).toEqual([1, REJECTED]);
    expect(r.stderr).toContain(
      "ord__lint: the result was withheld (sensitive_output_rejected): rule local_path at $.content[0].text, the value is not shown",
    );
    expect(r.stderr).toContain("--allow-local-paths=ord lets them through");
    expect(r.stderr).not.toContain("/home/u");
    const row = await rowOf(dir.path, "ord__lint");
    expect([row.error_code, JSON.parse(row.detail)]).toEqual([
      "sensitive_output_rejected",
      { rule: "local_path", where: "$.content[0].text" },
    ]);
  });

  test.each(["ord__flag", "ord__html"])("%s: a path after = or > is a path", async (tool) => {
    await using dir = tempDir();
    write(join(dir.path, "toolgate.json"), ordinary());
    const r = await run(["call", tool, "{}", ...GRANT], { cwd: dir.path });
    expect([r.code, json(r)]).toEqual([1, REJECTED]);
    expect(JSON.parse((await rowOf(dir.path, tool)).detail)).toEqual({
      rule: "local_path",
      where: "$.content[0].text",
    });
  });

  test("an isError answer naming a file: the model sees the boundary's fixed object, the journal the server's error, stderr that the remote side may have acted", async () => {
    await using dir = tempDir();
    write(join(dir.path, "toolgate.json"), ordinary());
    const r = await run(["call", "ord__missing", "{}", ...GRANT], { cwd: dir.path });
    expect([r.code, json(r)]).toEqual([1, REJECTED]);
    expect(r.stderr).toContain(
      "ord__missing: the server's error answer (remote_tool) was withheld (sensitive_output_rejected): rule local_path at $.content[0].text, the value is not shown; the remote side may have acted",
    );
    const row = await rowOf(dir.path, "ord__missing");
    expect([row.status, row.error_code, JSON.parse(row.detail)]).toEqual([
      "failed",
      "remote_tool",
      { rule: "local_path", where: "$.content[0].text", withheld: true },
    ]);
    expect(JSON.stringify(row)).not.toContain("/home/u");
  });

  test("--allow-local-paths=SERVER lets that server's paths through, and every such call's row says so", async () => {
    await using dir = tempDir();
    write(join(dir.path, "toolgate.json"), ordinary());
    const r = await run(["call", "ord__lint", "{}", "--allow-local-paths=ord", ...GRANT], { cwd: dir.path });
    expect([r.code, json(r)]).toEqual([
      0,
      {
        status: "success",
        tool: "ord__lint",
        payload: { content: [{ type: "text", text: "/home/u/project/src/a.ts:1:7 no-unused-vars" }] },
      },
    ]);
    expect(JSON.parse((await rowOf(dir.path, "ord__lint")).detail)).toEqual({
      local_paths: "off",
      by: "--allow-local-paths=ord",
    });
    const err = await run(["call", "ord__missing", "{}", "--allow-local-paths", "ord", ...GRANT], { cwd: dir.path });
    expect([err.code, json(err).error_code, json(err).message]).toEqual([
      1,
      "remote_tool",
      "ENOENT: no such file /home/u/project/x.ts",
    ]);
  });

  test("--allow-local-paths naming no configured server is a usage error, naming the nearest when one is close", async () => {
    await using dir = tempDir();
    write(join(dir.path, "toolgate.json"), ordinary());
    const r = await run(["call", "ord__lint", "{}", "--allow-local-paths=ordd", ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '--allow-local-paths=ordd: no server "ordd" in mcpServers (there are: ord); did you mean "ord"?\n',
    );
    const far = await run(["call", "ord__lint", "{}", "--allow-local-paths=eslint", ...GRANT], { cwd: dir.path });
    expect(far.code).toBe(2);
    expect(far.stderr).toContain('--allow-local-paths=eslint: no server "eslint" in mcpServers (there are: ord)\n');
  });

  test('"boundary": {"local_paths": "allow"} in the user\'s own config (--config) lets that server\'s paths through', async () => {
    await using dir = tempDir();
    await using home = tempDir();
    const mine = write(join(home.path, "mine.json"), {
      ...ordinary({ boundary: { local_paths: "allow" } }),
      workspace: dir.path,
      state: join(dir.path, ".toolgate"),
    });
    const r = await run(["call", "ord__lint", "{}", "--config", mine, ...GRANT], { cwd: dir.path });
    expect([r.code, json(r).status]).toEqual([0, "success"]);
    expect(JSON.parse((await rowOf(dir.path, "ord__lint", ["--config", mine])).detail)).toEqual({
      local_paths: "off",
      by: "mcpServers.ord.boundary.local_paths",
    });
  });

  test("the same key in a workspace config that is not trusted fails the boot as a widening (exit 5)", async () => {
    await using dir = tempDir();
    write(join(dir.path, "toolgate.json"), ordinary({ boundary: { local_paths: "allow" } }));
    const r = await run(["call", "ord__weather", "{}", ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(
      "mcpServers.ord.boundary.local_paths: lets this server's results through with local paths in them",
    );
    expect(r.stderr).toContain("toolgate trust");
  });

  test("server-filesystem with --allow-local-paths: list_allowed_directories answers its folder", async () => {
    await using dir = tempDir();
    write(join(dir.path, "toolgate.json"), { mcpServers: { fs: { command: NODE, args: [FILESYSTEM, dir.path] } } });
    const r = await run(["call", "fs__list_allowed_directories", "{}", "--allow-local-paths=fs", ...GRANT], {
      cwd: dir.path,
    });
    expect([r.code, json(r).status]).toEqual([0, "success"]);
    expect(json(r).payload.content[0].text).toContain(dir.path);
  });
});
