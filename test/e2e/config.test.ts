// End to end: config discovery, origins, the schema, and every bad-config boot failure (exit 5,
// no journal row, no state folder).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir, trustEnv } from "../helpers.ts";

describe("toolgate config", () => {
  test("shows each value with its origin: default, file:line, env, flag", async () => {
    await using dir = tempDir();
    // A repository: discovery starts from --workspace (sub) and goes up to its root.
    mkdirSync(join(dir.path, ".git"));
    writeFileSync(
      join(dir.path, "toolgate.json"),
      '{\n  // comments are fine\n  "sandbox": "off",\n  "las": { "timeout_secs": 30 },\n}\n',
    );
    const r = await run(["config", "--json", "--workspace", "sub"], {
      cwd: dir.path,
      env: { SINGULARITY_SHUTDOWN_GRACE_SECS: "3" },
    });
    expect(r.code).toBe(0);
    const c = json(r);
    const file = join(dir.path, "toolgate.json");
    expect(c.sandbox).toEqual({ value: "off", origin: `file:${file}:3` });
    expect(c["las.timeout_secs"]).toEqual({ value: 30, origin: `file:${file}:4` });
    expect(c["las.shutdown_grace_secs"]).toEqual({ value: 3, origin: "env:SINGULARITY_SHUTDOWN_GRACE_SECS" });
    expect(c.workspace).toEqual({ value: join(dir.path, "sub"), origin: "flag:--workspace" });
    expect(c["gates.pattern"]).toEqual({ value: "script/check-*.sh", origin: "default" });
    expect(c.state).toEqual({ value: join(dir.path, "sub", ".toolgate"), origin: "default" });
  });

  test("the nearest toolgate.json up to the repository root is found", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, ".git"));
    mkdirSync(join(dir.path, "a", "b"), { recursive: true });
    writeFileSync(join(dir.path, "toolgate.json"), '{"sandbox":"bench"}');
    const r = await run(["config", "--json"], { cwd: join(dir.path, "a", "b") });
    expect(json(r).sandbox.value).toBe("bench");
    expect(json(r).workspace.value).toBe(dir.path);
  });

  test("$TOOLGATE_CONFIG names the file; environment beats file, flag beats both", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "custom.json"), '{"las":{"command":"bun"}}');
    const r = await run(["config", "--json"], {
      cwd: dir.path,
      env: { TOOLGATE_CONFIG: "custom.json", LAS_COMMAND: "deno" },
    });
    expect(json(r)["las.command"]).toEqual({ value: "deno", origin: "env:LAS_COMMAND" });
  });

  test("config schema prints the JSON Schema for editors", async () => {
    await using dir = tempDir();
    const r = await run(["config", "schema"], { cwd: dir.path });
    expect(r.code).toBe(0);
    const s = json(r);
    expect(s.type).toBe("object");
    expect(s.additionalProperties).toBe(false);
    expect(Object.keys(s.properties)).toEqual(
      expect.arrayContaining([
        "workspace",
        "permissions",
        "approval",
        "las",
        "mcpServers",
        "gates",
        "sandbox",
        "skills",
      ]),
    );
  });
});

describe("bad config: exit 5, what, where, how to fix, nothing written", () => {
  test.each([
    [
      "invalid JSON, with line and column",
      '{\n  "sandbox": "off",\n  "state" ".x"\n}',
      /toolgate\.json:3:11: invalid JSON/,
    ],
    [
      "an unknown key, with its line",
      '{\n  "sandbox": "off",\n  "sandbax": "on"\n}',
      /toolgate\.json:3:3: sandbax: .*must be removed/,
    ],
    [
      "a wrong value type, with the key path",
      '{\n  "las": {\n    "timeout_secs": "soon"\n  }\n}',
      /toolgate\.json:3:21: las\.timeout_secs: must be a number \(was a string\)/,
    ],
    ["a bad enum value", '{"sandbox": "maybe"}', /sandbox: must be "bench", "off" or "product"/],
    [
      "an approval override that loosens a tool",
      '{"approval": {"file_read": "never"}}',
      /can only make a tool stricter/,
    ],
  ])("%s", async (_what, text, pattern) => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "toolgate.json"), text);
    const r = await run(["call", "file_read", '{"path":"x"}', "-A", "--approve", "all"], { cwd: dir.path });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(pattern);
    expect(r.stderr).toContain("hint:");
    expect(existsSync(join(dir.path, ".toolgate"))).toBe(false);
  });

  test("every problem is listed, each with its place, in the order of the file", async () => {
    await using dir = tempDir();
    const path = join(dir.path, "toolgate.json");
    writeFileSync(path, '{\n  "sandbox": "maybe",\n  "mcpServers": {"a": {"command": 1, "bogus": 2}},\n  "x1": 1\n}\n');
    const r = await run(["tools"], { cwd: dir.path });
    expect(r.code).toBe(5);
    expect(r.stderr).toBe(
      [
        `toolgate: ${path}: 4 problems:`,
        `  ${path}:2:14: sandbox: must be "bench", "off" or "product" (was "maybe")`,
        `  ${path}:3:35: mcpServers.a.command: must be a string (was a number)`,
        `  ${path}:3:38: mcpServers.a.bogus: must be removed`,
        `  ${path}:4:3: x1: must be removed`,
        "  hint: `toolgate config schema` prints the expected shape of every key; remove that key or check its spelling; `toolgate config schema` prints every key the file may hold",
        "",
      ].join("\n"),
    );
  });

  test("--config naming a missing file", async () => {
    await using dir = tempDir();
    const r = await run(["tools", "--config", "nope.json"], { cwd: dir.path });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`${join(dir.path, "nope.json")} (from --config) does not exist`);
  });

  test("an environment value that is not a number", async () => {
    await using dir = tempDir();
    const r = await run(["config"], { cwd: dir.path, env: { SINGULARITY_MCP_TIMEOUT_SECS: "soon" } });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('SINGULARITY_MCP_TIMEOUT_SECS="soon" is not a number of seconds');
  });
});

describe("config permissions", () => {
  test("a trusted config's permissions grant like flags; a config deny beats a flag allow", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, "private"));
    writeFileSync(join(dir.path, "a.txt"), "x\n");
    writeFileSync(join(dir.path, "private", "b.txt"), "y\n");
    writeFileSync(
      join(dir.path, "toolgate.json"),
      '{"permissions": {"allow": {"read": ["."]}, "deny": {"read": ["private"]}}}',
    );
    const env = trustEnv(join(dir.path, "toolgate.json"));
    const ok = await run(["call", "file_read", '{"path":"a.txt"}', "--approve", "file_read"], { cwd: dir.path, env });
    expect(ok.code).toBe(0);
    const denied = await run(
      ["call", "file_read", '{"path":"private/b.txt"}', "--approve", "file_read", "--allow-read"],
      { cwd: dir.path, env },
    );
    expect(denied.code).toBe(4);
    expect(json(denied).message).toContain("deny wins");
  });
});
