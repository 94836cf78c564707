// End to end against dist/toolgate: a name toolgate does not know is refused as before (same code,
// same exit code) and the refusal names the nearest valid name when one is close; a far-off name
// gets no suggestion. Never a correction: nothing runs under the suggested name.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, ROOT, run, tempDir } from "../helpers.ts";
import { fixtureRepo } from "../fixtures/gates/make-repo.ts";
import { serve, site, textJson } from "../serve/client.ts";

const ORDINARY = join(ROOT, "test", "fixtures", "mcp", "ordinary.ts");

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

/** The first line toolgate wrote on stderr, without its prefix. */
const firstLine = (stderr: string) => stderr.split("\n")[0]!.replace(/^toolgate: /, "");

describe("commands and flags: usage errors (exit 2), the nearest name when one is close", () => {
  test.each([
    [
      "a command",
      ["cal"],
      'unknown command "cal"; did you mean "call"?',
      ["frobnicate"],
      'unknown command "frobnicate"',
    ],
    [
      "a global flag",
      ["call", "file_read", "{}", "--aprove", "file_read"],
      "unknown flag --aprove; did you mean --approve?",
      ["call", "file_read", "{}", "--frobnicate"],
      "unknown flag --frobnicate",
    ],
    [
      "a permission flag",
      ["call", "file_read", "{}", "--allow-reed"],
      "unknown flag --allow-reed; did you mean --allow-read?",
      ["call", "file_read", "{}", "-x"],
      "unknown flag -x",
    ],
    [
      "a permission flag with a value",
      ["call", "file_read", "{}", "--allow-reed=src"],
      "unknown flag --allow-reed; did you mean --allow-read?",
      ["call", "file_read", "{}", "--allow-everything=src"],
      "unknown flag --allow-everything",
    ],
    [
      "a command's own flag",
      ["tools", "--lokc"],
      "unknown flag --lokc; did you mean --lock?",
      ["tools", "--frobnicate"],
      "unknown flag --frobnicate",
    ],
    [
      "a flag with no command",
      ["--verbsoe"],
      "unknown flag --verbsoe; did you mean --verbose?",
      ["--frobnicate"],
      "unknown flag --frobnicate",
    ],
    [
      "a long flag with one dash",
      ["-jsn"],
      "unknown flag -jsn; did you mean --json?",
      ["-frobnicate"],
      "unknown flag -frobnicate",
    ],
    [
      "a tasks action",
      ["tasks", "lsit"],
      'unknown tasks action "lsit"; did you mean "list"?',
      ["tasks", "frobnicate"],
      'unknown tasks action "frobnicate"',
    ],
    [
      "a config action",
      ["config", "shema"],
      'unknown config action "shema"; did you mean "schema"?',
      ["config", "frobnicate"],
      'unknown config action "frobnicate"',
    ],
    [
      "a session action",
      ["session", "strat"],
      'unknown session action "strat"; did you mean "start"?',
      ["session", "frobnicate"],
      'unknown session action "frobnicate"',
    ],
  ])("%s", async (_what, near, nearLine, far, farLine) => {
    await using dir = tempDir();
    const [r, f] = [await run(near, { cwd: dir.path }), await run(far, { cwd: dir.path })];
    expect([r.code, r.stdout, firstLine(r.stderr)]).toEqual([2, "", nearLine]);
    expect([f.code, f.stdout, firstLine(f.stderr)]).toEqual([2, "", farLine]);
  });
});

describe("servers and profiles: usage errors (exit 2), the nearest name when one is close", () => {
  test("auth SERVER names the nearest configured server", async () => {
    await using dir = tempDir();
    const config = join(dir.path, "mine.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { github: { type: "http", url: "http://127.0.0.1:9/mcp" } } }));
    const near = await run(["auth", "gihub", "--config", config], { cwd: dir.path });
    expect([near.code, firstLine(near.stderr)]).toEqual([
      2,
      'no server "gihub" in mcpServers (there are: github); did you mean "github"?',
    ]);
    const far = await run(["auth", "frobnicate", "--config", config], { cwd: dir.path });
    expect([far.code, firstLine(far.stderr)]).toEqual([2, 'no server "frobnicate" in mcpServers (there are: github)']);
  });

  test("serve --profile names the nearest profile", async () => {
    await using dir = tempDir();
    const near = await run(["serve", "--profile", "scuot"], { cwd: dir.path });
    expect([near.code, near.stdout, firstLine(near.stderr)]).toEqual([
      2,
      "",
      'no profile named "scuot"; the profiles are: full, scout, writer (built in); did you mean "scout"?',
    ]);
    const far = await run(["serve", "--profile", "frobnicate"], { cwd: dir.path });
    expect([far.code, far.stdout, firstLine(far.stderr)]).toEqual([
      2,
      "",
      'no profile named "frobnicate"; the profiles are: full, scout, writer (built in)',
    ]);
  });
});

describe("tools: unknown_tool as before (exit 1, journaled), the nearest name in the message and details.did_you_mean", () => {
  test.each([
    ["a swapped pair", "file_raed", "file_read"],
    ["the words in another order", "read_file", "file_read"],
    ["another case", "File_Read", "file_read"],
  ])("call: %s", async (_what, name, near) => {
    await using dir = tempDir();
    const r = await run(["call", name, "{}", "--allow-read", "--approve", "file_read"], { cwd: dir.path });
    const message = `no tool named "${name}" in this catalog; \`toolgate tools\` lists them; did you mean "${near}"?`;
    expect([r.code, json(r)]).toEqual([
      1,
      { status: "failed", tool: name, error_code: "unknown_tool", message, details: { did_you_mean: near } },
    ]);
    expect(r.stderr).toContain(`unknown_tool: ${message}`);
    const far = await run(["call", "frobnicate", "{}"], { cwd: dir.path });
    expect([far.code, json(far)]).toEqual([
      1,
      {
        status: "failed",
        tool: "frobnicate",
        error_code: "unknown_tool",
        message: 'no tool named "frobnicate" in this catalog; `toolgate tools` lists them',
      },
    ]);
    const rows = (await run(["log", "--json"], { cwd: dir.path })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.map((x) => [x.tool, x.error_code])).toEqual([
      [name, "unknown_tool"],
      ["frobnicate", "unknown_tool"],
    ]);
  });

  test("tools NAME: the nearest tool of the profile shown", async () => {
    await using dir = tempDir();
    const r = await run(["tools", "file_raed"], { cwd: dir.path });
    expect([r.code, r.stdout]).toEqual([1, ""]);
    expect(r.stderr).toContain(
      'toolgate: unknown_tool: no tool named "file_raed" in this catalog; did you mean "file_read"?\n',
    );
    // writer offers file_read, file_edit, file_write: file_search is not suggested there.
    const narrow = await run(["tools", "--profile", "writer", "file_serch"], { cwd: dir.path });
    expect([narrow.code, narrow.stdout]).toEqual([1, ""]);
    expect(narrow.stderr).toContain('toolgate: unknown_tool: no tool named "file_serch" in this catalog\n');
    const wide = await run(["tools", "file_serch"], { cwd: dir.path });
    expect(wide.stderr).toContain(
      'toolgate: unknown_tool: no tool named "file_serch" in this catalog; did you mean "file_search"?\n',
    );
  });

  test("serve: the nearest name this client is served (its profile)", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serve(["--profile", "writer"], { cwd: s.ws, home: s.home });
    const near = await served.client.callTool({ name: "file_raed", arguments: {} });
    expect(near._meta).toEqual({ toolgate: { status: "failed", error_code: "unknown_tool" } });
    expect(textJson(near)).toEqual({
      status: "failed",
      tool: "file_raed",
      error_code: "unknown_tool",
      message: 'no tool named "file_raed" in this catalog; `toolgate tools` lists them; did you mean "file_read"?',
      details: { did_you_mean: "file_read" },
    });
    // file_search is in the catalog but not served under writer: not suggested.
    const hidden = await served.client.callTool({ name: "file_serch", arguments: {} });
    expect(textJson(hidden)).toEqual({
      status: "failed",
      tool: "file_serch",
      error_code: "unknown_tool",
      message: 'no tool named "file_serch" in this catalog; `toolgate tools` lists them',
    });
  });
});

describe("gates: dev_check.unknown_gate as before (exit 1), the nearest gate named", () => {
  test("a near gate is named, never run; a far-off one is not", async () => {
    await using repo = fixtureRepo({ changes: false });
    const grant = ["--allow-run=bash,git", "--approve", "dev_check"];
    const r = await run(["call", "dev_check", '{"gate":"pas"}', ...grant], { cwd: repo.path });
    const message = 'no gate named "pas"; the gates are: fail, hang, pass, tree (or "all"); did you mean "pass"?';
    expect([r.code, json(r)]).toEqual([
      1,
      {
        status: "failed",
        tool: "dev_check",
        error_code: "dev_check.unknown_gate",
        message,
        details: { gates: ["fail", "hang", "pass", "tree"], did_you_mean: "pass" },
      },
    ]);
    expect(r.stderr).toContain(`dev_check.unknown_gate: ${message}`);
    const far = await run(["call", "dev_check", '{"gate":"frobnicate"}', ...grant], { cwd: repo.path });
    expect([far.code, json(far).details]).toEqual([1, { gates: ["fail", "hang", "pass", "tree"] }]);
  });
});

describe("keys: refused as before, the nearest declared key named beside the one that must be removed", () => {
  test("an argument key: args.invalid (exit 1), the nearest in the message and the issue's did_you_mean", async () => {
    await using dir = tempDir();
    const r = await run(["call", "file_read", '{"path":"a.txt","limt":5}', "--allow-read", "--approve", "file_read"], {
      cwd: dir.path,
    });
    expect([r.code, json(r)]).toEqual([
      1,
      {
        status: "failed",
        tool: "file_read",
        error_code: "args.invalid",
        message: 'invalid arguments for file_read: limt: must be removed (did you mean "limit"?)',
        details: { issues: [{ path: ["limt"], message: "must be removed", did_you_mean: "limit" }] },
      },
    ]);
    expect(r.stderr).toContain(
      'args.invalid: invalid arguments for file_read: limt: must be removed (did you mean "limit"?)',
    );
    const far = await run(
      ["call", "file_read", '{"path":"a.txt","frobnicate":5}', "--allow-read", "--approve", "file_read"],
      { cwd: dir.path },
    );
    expect([far.code, json(far).details]).toEqual([
      1,
      { issues: [{ path: ["frobnicate"], message: "must be removed" }] },
    ]);
  });

  test("config keys: a boot failure (exit 5) naming each file:line:column and the nearest key", async () => {
    await using dir = tempDir();
    const path = join(dir.path, "toolgate.json");
    writeFileSync(
      path,
      '{\n  "sandbx": "off",\n  "mcpServers": { "a": { "comand": "echo" } },\n  "frobnicate": 1\n}\n',
    );
    const r = await run(["call", "file_read", '{"path":"a.txt"}'], { cwd: dir.path });
    expect([r.code, r.stdout]).toEqual([5, ""]);
    expect(r.stderr.split("\n").slice(0, 4)).toEqual([
      `toolgate: ${path}: 3 problems:`,
      `  ${path}:2:3: sandbx: must be removed (did you mean "sandbox"?)`,
      `  ${path}:3:26: mcpServers.a.comand: must be removed (did you mean "command"?)`,
      `  ${path}:4:3: frobnicate: must be removed`,
    ]);
  });
});

describe("--approve: a name that is no tool is refused at start (exit 2), nothing run or written", () => {
  test.each([
    ["call", ["call", "file_read", '{"path":"a.txt"}']],
    ["serve", ["serve"]],
  ])("%s", async (_what, argv) => {
    await using dir = tempDir();
    const near = await run([...argv, "--allow-read", "--approve", "file_raed"], { cwd: dir.path });
    expect([near.code, near.stdout, firstLine(near.stderr)]).toEqual([
      2,
      "",
      '--approve file_raed: no tool named "file_raed" in this catalog; did you mean "file_read"?',
    ]);
    const far = await run([...argv, "--allow-read", "--approve", "file_read,frobnicate"], { cwd: dir.path });
    expect([far.code, far.stdout, firstLine(far.stderr)]).toEqual([
      2,
      "",
      '--approve frobnicate: no tool named "frobnicate" in this catalog',
    ]);
    const all = await run([...argv, "--allow-read", "--approve", "al"], { cwd: dir.path });
    expect([all.code, firstLine(all.stderr)]).toEqual([
      2,
      '--approve al: no tool named "al" in this catalog; did you mean "all"?',
    ]);
    expect(existsSync(join(dir.path, ".toolgate"))).toBe(false);
  });

  test("call: approving the very tool it calls under a name the catalog lacks stays unknown_tool (exit 1, journaled)", async () => {
    await using dir = tempDir();
    const r = await run(["call", "file_raed", "{}", "--approve", "file_raed"], { cwd: dir.path });
    expect([r.code, json(r).error_code, json(r).details]).toEqual([1, "unknown_tool", { did_you_mean: "file_read" }]);
  });

  test("serve --expose: the names the client sees are accepted and approve their tools; a typo of one names it", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const config = join(s.home, "toolgate.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { ord: { command: process.execPath, args: [ORDINARY] } } }));
    const flags = ["--config", config, "--allow-run", "--expose", "ord"];
    await using served = await serve([...flags, "--approve", "weather"], { cwd: s.ws, home: s.home });
    const r = await served.client.callTool({ name: "weather", arguments: {} });
    expect([r.isError, r.content]).toEqual([undefined, [{ type: "text", text: "Light rain / drizzle, 11 °C" }]]);
    await served.close();
    const env = { HOME: s.home, XDG_STATE_HOME: join(s.home, "state") };
    const typo = await run(["serve", ...flags, "--approve", "wether"], { cwd: s.ws, env });
    expect([typo.code, typo.stdout, firstLine(typo.stderr)]).toEqual([
      2,
      "",
      '--approve wether: no tool named "wether" in this catalog; did you mean "weather"?',
    ]);
    // --expose itself names the nearest configured server.
    const server = await run(["serve", "--config", config, "--allow-run", "--expose", "ordd"], { cwd: s.ws, env });
    expect([server.code, server.stdout, firstLine(server.stderr)]).toEqual([
      2,
      "",
      '--expose "ordd": no MCP server of that name in the config; did you mean "ord"?',
    ]);
  }, 30_000);
});
