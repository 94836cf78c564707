// End to end: names as servers and other clients write them. Tool names with dots, a
// slash or 127 characters, and server names such as `github.com/owner/repo`, `My Server` or one
// past 40 characters, are offered under deterministic mapped names, shown beside the name the
// server wrote; a call by the mapped name reaches the server's own tool; nothing fails the boot.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, onTty, run, tempDir, type RunResult } from "../helpers.ts";

const DOTTED = join(import.meta.dir, "..", "fixtures", "mcp", "dotted.ts");
const GRANT = ["--allow-run", "--approve", "all"];
const LONG_TOOL = `summarise_${"every_ledger_entry_".repeat(6)}end`;
const LONG_SERVER = "a_server_name_that_is_longer_than_forty_chars";
const hex = (s: string, n = 8) => createHash("sha256").update(s).digest("hex").slice(0, n);
const lines = (r: RunResult) =>
  r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const dotted = { command: process.execPath, args: [DOTTED] };
const config = (dir: string) =>
  writeFileSync(
    join(dir, "toolgate.json"),
    JSON.stringify({
      mcpServers: { d: dotted, "github.com/owner/repo": dotted, "My Server": dotted, [LONG_SERVER]: dotted },
    }),
  );

const GH = `github_com_owner_repo_${hex("github.com/owner/repo")}`;
const MY = `My_Server_${hex("My Server")}`;
const LS = `a_server_name_that_is_longer_th_${hex(LONG_SERVER)}`;

describe("mapped names", () => {
  test("every server's tools are listed, mapped names beside the names the servers wrote; the same twice", async () => {
    await using dir = tempDir();
    config(dir.path);
    const r = await run(["tools", "--allow-run"], { cwd: dir.path });
    expect(r.code).toBe(0);
    const remote = lines(r)
      .filter((d) => d.origin.startsWith("mcp:"))
      .map((d) => [d.name, d.original, d.origin]);
    const longMapped = `${LONG_TOOL.slice(0, 128 - 3 - 9)}_${hex(LONG_TOOL)}`;
    expect(remote).toEqual(
      [
        [`d__db_query_${hex("db.query")}`, "db.query", "mcp:d"],
        [`d__files_read_${hex("files/read")}`, "files/read", "mcp:d"],
        ["d__list_directory_with_sizes", undefined, "mcp:d"],
        [`d__${longMapped}`, LONG_TOOL, "mcp:d"],
        ...[
          [GH, "github.com/owner/repo"],
          [MY, "My Server"],
          [LS, LONG_SERVER],
        ].flatMap(([prefix, server]) => {
          const room = 128 - prefix!.length - 2 - 9;
          return [
            [`${prefix}__db_query_${hex("db.query")}`, "db.query", `mcp:${server}`],
            [`${prefix}__files_read_${hex("files/read")}`, "files/read", `mcp:${server}`],
            [`${prefix}__list_directory_with_sizes`, "list_directory_with_sizes", `mcp:${server}`],
            [
              `${prefix}__${LONG_TOOL.slice(0, room).replace(/[_-]+$/, "")}_${hex(LONG_TOOL)}`,
              LONG_TOOL,
              `mcp:${server}`,
            ],
          ];
        }),
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    );
    expect(remote.every(([n]) => /^[A-Za-z0-9_-]{1,128}$/.test(n!))).toBe(true);
    const again = await run(["tools", "--allow-run", "--refresh"], { cwd: dir.path });
    expect(lines(again).map((d) => d.name)).toEqual(lines(r).map((d) => d.name));
  });

  test("a call by the mapped name reaches the server's own tool (a cold call starts only that server)", async () => {
    await using dir = tempDir();
    config(dir.path);
    const name = `${GH}__db_query_${hex("db.query")}`;
    const r = await run(["call", name, '{"q":"x"}', ...GRANT], { cwd: dir.path });
    expect([r.code, json(r)]).toEqual([
      0,
      {
        status: "success",
        tool: name,
        payload: { content: [{ type: "text", text: 'called db.query with {"q":"x"}' }] },
      },
    ]);
    const mapped = `d__${LONG_TOOL.slice(0, 128 - 3 - 9)}_${hex(LONG_TOOL)}`;
    const l = await run(["call", mapped, "{}", ...GRANT], { cwd: dir.path });
    expect([l.code, json(l).payload.content[0].text]).toEqual([0, `called ${LONG_TOOL} with {}`]);
    // The one server started for the cold call is the only one the journal shows starting.
    const starts = lines(await run(["log", "--json"], { cwd: dir.path }))
      .filter((x) => x.tool.startsWith("mcp.connect:"))
      .map((x) => x.tool);
    expect(starts).toEqual(["mcp.connect:github.com/owner/repo", "mcp.connect:d"]);
  });

  test("the original name is not a catalog name: calling it is unknown_tool", async () => {
    await using dir = tempDir();
    config(dir.path);
    const r = await run(["call", "d__db.query", "{}", ...GRANT], { cwd: dir.path });
    expect([r.code, json(r).error_code]).toEqual([1, "unknown_tool"]);
  });

  test("on a terminal the table has an ORIGINAL column beside NAME", async () => {
    await using dir = tempDir();
    config(dir.path);
    const t = await onTty(dir.path, ["tools", "--allow-run"], "");
    expect(t.code).toBe(0);
    expect(t.out.split("\n")[0]).toMatch(/^NAME +ORIGINAL +ORIGIN +EFFECT/);
    expect(t.out).toMatch(new RegExp(`d__db_query_${hex("db.query")} +db\\.query +mcp:d `));
    expect(t.out).toMatch(/d__list_directory_with_sizes +mcp:d /);
  });
});
