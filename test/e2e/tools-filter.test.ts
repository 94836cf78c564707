// End to end: `toolgate tools` filtered by a name glob, --source and --effect, and --names (the
// names alone, from the catalog cache: no server is started); a filter that cannot be is exit 2.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run, tempDir } from "../helpers.ts";

const MORTAL = join(import.meta.dir, "..", "fixtures", "mcp", "mortal.ts");
const names = (out: string) =>
  out
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l).name as string);

describe("toolgate tools filters", () => {
  test.each([
    [["file_*"], ["file_edit", "file_find", "file_read", "file_search", "file_write"]],
    [
      ["file_*", "--effect", "read"],
      ["file_find", "file_read", "file_search"],
    ],
    [
      ["file_*", "--effect", "write"],
      ["file_edit", "file_write"],
    ],
    [
      ["--effect", "reversible,idempotent-write"],
      ["desk", "file_edit", "plan"],
    ],
    [["task_????"], ["task_list"]],
    [
      ["--source", "builtin", "skill_*"],
      ["skill_list", "skill_load"],
    ],
    [["--source", "authored"], []],
  ])("%p", async (args, expected) => {
    await using ws = tempDir();
    const r = await run(["tools", ...args], { cwd: ws.path });
    expect(r.code).toBe(0);
    expect(names(r.stdout)).toEqual(expected);
  });

  test("--source names an MCP server (mcp:NAME, mcp, a glob); its tools only", async () => {
    await using ws = tempDir();
    writeFileSync(
      join(ws.path, "toolgate.json"),
      JSON.stringify({ mcpServers: { m: { command: process.execPath, args: [MORTAL] } } }),
    );
    const grant = ["--allow-run"];
    for (const source of ["mcp:m", "mcp", "mcp:*"]) {
      const r = await run(["tools", "--source", source, ...grant], { cwd: ws.path });
      expect({ source, names: names(r.stdout) }).toEqual({ source, names: ["m__die", "m__echo", "m__slow"] });
    }
    const both = await run(["tools", "--source", "mcp:m,builtin", "--effect", "read", ...grant], { cwd: ws.path });
    expect(names(both.stdout)).not.toContain("m__echo"); // an MCP tool declares no effect: irreversible
    expect(names(both.stdout)).toContain("file_read");
  });

  test.each([
    [
      ["--source", "mcp:nope"],
      '--source "mcp:nope": no such source in this catalog',
      "the sources are: builtin, authored, mcp",
    ],
    [["--source", "bultin"], '--source "bultin": no such source', "the sources are:"],
    [
      ["--effect", "writes"],
      '--effect "writes": not an effect class',
      "the effects are: read, idempotent-write, reversible, irreversible, or write",
    ],
    [["file_read", "--effect", "read"], "filter the list: not one tool's descriptor", "toolgate tools 'GLOB'"],
    [["--lock", "--source", "builtin"], "--lock pins the whole catalog", "drop them"],
    [["--names", "--refresh"], "--names starts no server", ""],
  ])("%p is a usage error (exit 2)", async (args, message, hint) => {
    await using ws = tempDir();
    const r = await run(["tools", ...args], { cwd: ws.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain(hint);
  });

  test("a table on a terminal says how many matched, or that none did", async () => {
    await using ws = tempDir();
    const { onTerminal } = await import("../helpers.ts");
    const some = await onTerminal(["tools", "file_*"], 120, ws.path);
    expect(some.lines).toContain("filtered: 5 of 17 tools");
    const none = await onTerminal(["tools", "zz*"], 120, ws.path);
    expect(none.lines[0]).toBe("(no tool matches)");
  });
});

describe("toolgate tools --names", () => {
  test("names alone, one a line; an MCP server's come from the catalog cache, and none is started", async () => {
    await using ws = tempDir();
    const pids = join(ws.path, "pids");
    writeFileSync(
      join(ws.path, "toolgate.json"),
      JSON.stringify({ mcpServers: { m: { command: process.execPath, args: [MORTAL, `--pids-out=${pids}`] } } }),
    );
    const cold = await run(["tools", "--names", "--allow-run"], { cwd: ws.path });
    expect(cold.code).toBe(0);
    expect(cold.stderr).toBe("");
    expect(cold.stdout.split("\n")).toContain("file_read");
    expect(cold.stdout).not.toContain("m__");
    expect(existsSync(pids)).toBe(false);
    // A listing caches what the server lists: --names then has its tools, still starting nothing.
    await run(["tools", "--allow-run"], { cwd: ws.path });
    const started = readFileSync(pids, "utf8");
    const warm = await run(["tools", "--names", "m__*"], { cwd: ws.path });
    expect(warm.stdout).toBe("m__die\nm__echo\nm__slow\n");
    expect(readFileSync(pids, "utf8")).toBe(started);
  });
});
