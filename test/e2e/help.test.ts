// End to end: `toolgate help [CMD]` is `[CMD] --help`; help fits 100 columns when piped (a
// terminal's width on one: test/e2e/terminal-width); every command has examples, and each example runs.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { EXAMPLES } from "../../src/cli/examples.ts";
import { BIN, onTerminal, run, tempDir } from "../helpers.ts";

/** The command names toolgate's own help lists. */
async function commands(cwd: string): Promise<string[]> {
  const r = await run(["--help"], { cwd });
  const section = r.stdout.split("\nCOMMANDS\n\n")[1]!.split("\n\n")[0]!;
  return section
    .split("\n")
    .filter((l) => /^ {2}\S/.test(l))
    .map((l) => l.trim().split(/\s+/)[0]!);
}

describe("toolgate help", () => {
  test("help alone is --help; help CMD is CMD --help, for every command", async () => {
    await using dir = tempDir();
    const top = await run(["--help"], { cwd: dir.path });
    expect(await run(["help"], { cwd: dir.path })).toEqual({ ...top, code: 0 });
    const names = await commands(dir.path);
    expect(names).toContain("help");
    expect(names).toContain("call");
    for (const name of names) {
      const a = await run(["help", name], { cwd: dir.path });
      const b = await run([name, "--help"], { cwd: dir.path });
      expect({ name, code: a.code, stdout: a.stdout }).toEqual({ name, code: 0, stdout: b.stdout });
      expect(a.stdout).toContain(`USAGE toolgate ${name}`);
    }
  });

  test("an unknown command, or more than one, is a usage error (exit 2)", async () => {
    await using dir = tempDir();
    const unknown = await run(["help", "cal"], { cwd: dir.path });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "cal"');
    const two = await run(["help", "call", "tools"], { cwd: dir.path });
    expect([two.code, two.stderr]).toEqual([
      2,
      'toolgate: unexpected argument "tools"\n  hint: toolgate help [COMMAND]\n',
    ]);
  });

  test("piped, help is plain text within 100 columns but for a word longer than a line", async () => {
    await using dir = tempDir();
    for (const args of [["--help"], ["help", "call"], ["help", "serve"], ["help", "tasks"]]) {
      const r = await run(args, { cwd: dir.path });
      expect(r.stdout).not.toContain("\u001b");
      for (const line of r.stdout.split("\n"))
        if (line.includes(" ")) expect({ line, width: line.length <= 100 }).toEqual({ line, width: true });
    }
  });

  test("on a terminal 50 columns wide, help is wrapped to 50", async () => {
    await using dir = tempDir();
    const r = await onTerminal(["help", "call"], 50, dir.path);
    expect(r.code).toBe(0);
    const plain = r.lines.map((l) => l.replace(/\u001b\[[0-9;]*m/g, ""));
    expect(Math.max(...plain.map((l) => l.length))).toBeLessThanOrEqual(50);
    expect(plain).toContain("EXAMPLES");
    // An example too long for a line is continued between words, so it still pastes as one command.
    expect(plain.some((l) => l.endsWith(" \\"))).toBe(true);
  });
});

describe("every command's examples", () => {
  test("each command has examples; no example names another command", async () => {
    await using dir = tempDir();
    for (const name of await commands(dir.path))
      expect({ name, examples: (EXAMPLES[name] ?? []).length > 0 }).toEqual({ name, examples: true });
    expect(EXAMPLES.toolgate!.length).toBeGreaterThan(0);
  });

  // Each command's examples, in order, in a workspace of their own: a README.md and an untrusted
  // toolgate.json that only narrows (auth's declares the HTTP server it names).
  test.each(Object.keys(EXAMPLES))("%s: every example runs (exit 0)", async (command) => {
    await using ws = tempDir();
    await using user = tempDir();
    writeFileSync(join(ws.path, "README.md"), "# toolgate\n\nAn example workspace.\n");
    const config = {
      approval: { file_read: "required" },
      ...(command === "auth" ? { mcpServers: { docs: { type: "http", url: "https://docs.invalid/mcp" } } } : {}),
    };
    writeFileSync(join(ws.path, "toolgate.json"), JSON.stringify(config));
    const env = { PATH: `${dirname(BIN)}:/usr/bin:/bin`, HOME: ws.path, XDG_STATE_HOME: user.path, CI: "true" };
    mkdirSync(join(ws.path, ".config"), { recursive: true });
    try {
      for (const e of EXAMPLES[command]!) {
        const proc = Bun.spawn(["bash", "-c", e.cmd], {
          cwd: ws.path,
          env,
          stdin: "ignore",
          stdout: "pipe",
          stderr: "pipe",
        });
        const [stderr, code] = await Promise.all([
          new Response(proc.stderr).text(),
          proc.exited,
          new Response(proc.stdout).text(),
        ]);
        expect({ cmd: e.cmd, code, stderr: code === 0 ? "" : stderr }).toEqual({ cmd: e.cmd, code: 0, stderr: "" });
      }
    } finally {
      await run(["session", "stop"], { cwd: ws.path, env });
    }
  });
});
