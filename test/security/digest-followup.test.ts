// The approval digest covers what runs beyond `./` arguments. An
// authored tool's `["bash", "scripts/fmt.sh"]` covers scripts/fmt.sh; an MCP server's digest covers
// its env as written and the workspace script its arguments name. Each change makes toolgate.lock
// refuse the tool (descriptor_changed, exit 5) and a remembered "always" approval no longer apply.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, onTty, run, tempDir } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "las", "server.ts");

interface Case {
  /** Writes the first version of the workspace. */
  setup(ws: string): void;
  /** The change a model (file_write) or a pull could make. */
  change(ws: string): void;
  tool: string;
  args: string;
}

const authored = (script: string) => (ws: string) => {
  mkdirSync(join(ws, "tools", "fmt"), { recursive: true });
  mkdirSync(join(ws, "scripts"), { recursive: true });
  writeFileSync(
    join(ws, "tools", "fmt", "tool.json"),
    JSON.stringify({
      name: "fmt",
      description: "Formats.",
      input_schema: { type: "object" },
      effect: "read",
      approval: "required",
      command: ["bash", "scripts/fmt.sh"],
    }),
  );
  writeFileSync(join(ws, "scripts", "fmt.sh"), script);
};

// The server runs a workspace script (a one-line wrapper around the fixture server).
const server =
  (env: Record<string, string>, wrapper = "") =>
  (ws: string) => {
    writeFileSync(join(ws, "srv.ts"), `import ${JSON.stringify(FIXTURE)};\n${wrapper}`);
    writeFileSync(
      join(ws, "toolgate.json"),
      JSON.stringify({ mcpServers: { x: { command: process.execPath, args: ["srv.ts"], env } } }),
    );
  };

const CASES: Record<string, Case> = {
  "an authored tool's script named without ./ (bash scripts/fmt.sh)": {
    setup: authored("echo '{}'\n"),
    change: authored("echo '{\"pwned\":true}'\n"),
    tool: "fmt",
    args: "{}",
  },
  "an MCP server's env value": {
    setup: server({ MODE: "safe" }),
    change: server({ MODE: "unsafe" }),
    tool: "x__echo__echo",
    args: '{"message":"hi"}',
  },
  "the workspace script an MCP server's arguments name": {
    setup: server({ MODE: "safe" }),
    change: server({ MODE: "safe" }, "// changed by a model\n"),
    tool: "x__echo__echo",
    args: '{"message":"hi"}',
  },
};

describe.each(Object.entries(CASES))("a change of %s", (_what, c) => {
  test("is refused by toolgate.lock (descriptor_changed, exit 5)", async () => {
    await using ws = tempDir();
    c.setup(ws.path);
    expect((await run(["tools", "--lock", "--allow-run"], { cwd: ws.path })).code).toBe(0);
    expect((await run(["call", c.tool, c.args, "--allow-run", "--approve", c.tool], { cwd: ws.path })).code).toBe(0);
    c.change(ws.path);
    const r = await run(["call", c.tool, c.args, "--allow-run", "--approve", c.tool], { cwd: ws.path });
    expect([r.code, json(r).error_code]).toEqual([5, "descriptor_changed"]);
    expect(json(r).message).toContain("what runs changed");
  });

  test('makes a remembered "always" approval no longer apply', async () => {
    await using ws = tempDir();
    // The user's state folder lies outside the workspace (one inside it is ignored).
    await using home = tempDir("toolgate-home-");
    const env = { HOME: home.path };
    c.setup(ws.path);
    const first = await onTty(ws.path, ["call", c.tool, c.args, "--allow-run"], "A\n", env);
    expect(first.out).toContain('"status":"success"');
    expect((await run(["call", c.tool, c.args, "--allow-run"], { cwd: ws.path, env })).code).toBe(0);
    c.change(ws.path);
    const r = await run(["call", c.tool, c.args, "--allow-run"], { cwd: ws.path, env });
    expect([r.code, json(r).error_code]).toEqual([4, "approval.required"]);
  });
});

test("a ${NAME} env entry is digested by its name: the secret's value never enters the digest", async () => {
  await using ws = tempDir();
  server({ TOKEN: "${T}" })(ws.path);
  const call = (t: string) =>
    run(["call", "x__echo__echo", '{"message":"hi"}', "--allow-run", "--allow-env=T", "--approve", "all"], {
      cwd: ws.path,
      env: { T: t },
    });
  expect(
    (await run(["tools", "--lock", "--allow-run", "--allow-env=T"], { cwd: ws.path, env: { T: "first" } })).code,
  ).toBe(0);
  expect((await call("first")).code).toBe(0);
  // A rotated token is the same server: the lock still holds.
  expect((await call("rotated")).code).toBe(0);
});
