// End to end: real MCP servers from npm whose ordinary answers the old token rule withheld
// (an excel and a git server): @negokaz/excel-mcp-server answers in HTML (`</table>` and `</ul>` at line
// starts), @cyanheads/git-mcp-server wraps a diff in JSON text (`--- /dev/null\n+++` with a
// literal `\n`). Each runs offline under node. Each is listed and called through dist/toolgate
// with only the grants a user would pass (no --allow-local-paths), and every answer is compared
// byte for byte with what the official SDK Client gets from the same server.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { json, ROOT, run, tempDir, type RunResult } from "../helpers.ts";
import { writeXlsx } from "../fixtures/xlsx.ts";

const NODE = Bun.which("node") ?? "/usr/bin/node";
const EXCEL = join(ROOT, "node_modules", "@negokaz", "excel-mcp-server", "dist", "launcher.js");
const GIT = join(ROOT, "node_modules", "@cyanheads", "git-mcp-server", "dist", "index.js");
const lines = (r: RunResult) =>
  r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const config = (dir: string, name: string, args: string[]) =>
  Bun.write(join(dir, "toolgate.json"), JSON.stringify({ mcpServers: { [name]: { command: NODE, args } } }));

type Call = [tool: string, args: Record<string, unknown>];

/** What the official SDK Client lists and answers, over stdio, for the same server and calls. */
async function viaSdk(
  args: string[],
  cwd: string,
  calls: Call[],
): Promise<{ tools: { name: string; description?: string }[]; results: unknown[] }> {
  const client = new Client({ name: "sdk-reference", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: NODE, args, cwd, env: { PATH: "/usr/bin:/bin", HOME: cwd }, stderr: "ignore" }),
  );
  try {
    const { tools } = await client.listTools();
    const results: unknown[] = [];
    for (const [name, a] of calls) results.push(await client.callTool({ name, arguments: a }));
    return { tools, results };
  } finally {
    await client.close();
  }
}

/** The same list and calls through dist/toolgate: `tools --json`, then one `call` each. */
async function viaToolgate(server: string, cwd: string, calls: Call[]) {
  const listed = await run(["tools", "--json", "--allow-run"], { cwd });
  expect(listed.code).toBe(0);
  const tools = lines(listed).filter((d) => d.origin === `mcp:${server}`);
  const results: RunResult[] = [];
  for (const [name, a] of calls)
    results.push(
      await run(["call", `${server}__${name}`, JSON.stringify(a), "--allow-run", `--approve=${server}__${name}`], {
        cwd,
      }),
    );
  return { tools, results, stderr: listed.stderr };
}

/** Each toolgate call succeeded, and its payload serializes to the very bytes of the SDK's result. */
function sameAnswers(server: string, calls: Call[], got: RunResult[], want: unknown[]): void {
  for (const [i, [name]] of calls.entries()) {
    const r = got[i]!;
    expect([name, r.code, json(r).status, json(r).tool]).toEqual([name, 0, "success", `${server}__${name}`]);
    expect([name, JSON.stringify(json(r).payload)]).toEqual([name, JSON.stringify(want[i])]);
  }
}

describe("real servers that answer with HTML and JSON-wrapped diffs pass the boundary as they are", () => {
  test("@negokaz/excel-mcp-server: its HTML tables are read and written, byte for byte as the SDK client gets them", async () => {
    await using mine = tempDir();
    await using ref = tempDir();
    const rows = [
      ["Item", "Qty"],
      ["Pens", 3],
    ];
    writeXlsx(join(mine.path, "book.xlsx"), rows);
    writeXlsx(join(ref.path, "book.xlsx"), rows);
    await config(mine.path, "excel", [EXCEL]);
    const calls = (dir: string): Call[] => [
      ["excel_describe_sheets", { fileAbsolutePath: join(dir, "book.xlsx") }],
      ["excel_read_sheet", { fileAbsolutePath: join(dir, "book.xlsx"), sheetName: "Sheet1" }],
      [
        "excel_write_to_sheet",
        {
          fileAbsolutePath: join(dir, "book.xlsx"),
          sheetName: "Sheet1",
          newSheet: false,
          range: "A3:B3",
          values: [["Ink", 7]],
        },
      ],
      ["excel_read_sheet", { fileAbsolutePath: join(dir, "book.xlsx"), sheetName: "Sheet1", range: "A1:B3" }],
    ];
    const sdk = await viaSdk([EXCEL], ref.path, calls(ref.path));
    const tg = await viaToolgate("excel", mine.path, calls(mine.path));
    expect(tg.tools.map((t) => [t.name, t.description])).toEqual(
      sdk.tools.map((t) => [`excel__${t.name}`, t.description]),
    );
    sameAnswers("excel", calls(mine.path), tg.results, sdk.results);
    // What the old token rule read as paths: closing tags at line starts.
    const html = json(tg.results[3]!).payload.content[0].text as string;
    expect(html).toContain("\n</table>\n");
    expect(html).toContain("<tr><th>3</th><td>Ink</td><td>7</td></tr>");
    expect(html).toContain("\n</ul>\n");
  });

  test("@cyanheads/git-mcp-server: a diff that adds a file, wrapped in JSON text, and the status and log beside it", async () => {
    await using mine = tempDir();
    const repo = join(mine.path, "repo");
    const git = (...args: string[]) => {
      const env = {
        PATH: "/usr/bin:/bin",
        HOME: mine.path,
        GIT_AUTHOR_DATE: "2020-01-01T00:00:00Z",
        GIT_COMMITTER_DATE: "2020-01-01T00:00:00Z",
      };
      const r = Bun.spawnSync(
        ["git", "-c", "user.name=Ada", "-c", "user.email=ada@example.com", "-c", "init.defaultBranch=main", ...args],
        { cwd: mine.path, env },
      );
      if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
    };
    git("init", "-q", repo);
    await Bun.write(join(repo, "README.md"), "# repo\n");
    git("-C", repo, "add", "README.md");
    git("-C", repo, "commit", "-q", "-m", "first commit");
    await Bun.write(join(repo, "src", "new.ts"), "export const x = 1;\n");
    git("-C", repo, "add", "src/new.ts");
    await config(mine.path, "git", [GIT]);
    const calls: Call[] = [
      ["git_diff", { path: repo, staged: true }],
      ["git_status", { path: repo }],
      ["git_log", { path: repo }],
    ];
    const sdk = await viaSdk([GIT], mine.path, calls);
    const tg = await viaToolgate("git", mine.path, calls);
    // Two of its tools say they accept `file://` URLs: a file: URL after a space is a local path,
    // in a descriptor as in a result, so they are withheld from the listing (stderr says where).
    const withheld = ["git_clone", "git_remote"];
    expect(tg.tools.map((t) => [t.name, t.description])).toEqual(
      sdk.tools.filter((t) => !withheld.includes(t.name)).map((t) => [`git__${t.name}`, t.description]),
    );
    expect(tg.stderr).toContain(
      'mcp:git: tool "git_clone" withheld: what it declares breaks the output boundary (rule local_path at $.description, the value is not shown)',
    );
    expect(tg.stderr).toContain(
      'mcp:git: tool "git_remote" withheld: what it declares breaks the output boundary (rule local_path at $.inputSchema.properties.url.description, the value is not shown)',
    );
    sameAnswers("git", calls, tg.results, sdk.results);
    // The diff as the server sent it: JSON text whose escaped newline glued `/dev/null` to `+++`.
    const text = json(tg.results[0]!).payload.content[0].text as string;
    expect(text).toContain("--- /dev/null\\n+++ b/src/new.ts");
    expect(JSON.parse(text).diff).toContain("new file mode 100644\nindex");
  });

  test("the same servers' absolute paths are still withheld: a file the excel server cannot open, named in its error", async () => {
    await using mine = tempDir();
    await config(mine.path, "excel", [EXCEL]);
    const r = await run(
      [
        "call",
        "excel__excel_describe_sheets",
        JSON.stringify({ fileAbsolutePath: join(mine.path, "missing.xlsx") }),
        "--allow-run",
        "--approve=excel__excel_describe_sheets",
      ],
      { cwd: mine.path },
    );
    expect([r.code, json(r)]).toEqual([1, { status: "failed", error_code: "sensitive_output_rejected" }]);
    expect(r.stderr).toContain("rule local_path");
    expect(r.stderr).not.toContain("missing.xlsx");
  });
});
