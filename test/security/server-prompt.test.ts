// The permission prompt for starting an MCP server shows what would start:
// not only `run access to "bash"`, but the server's whole command line (escaped, bounded like the
// approval prompt's arguments) and where it was declared, with whether that config is trusted;
// and every start (written before it) and refused start leaves a journal row `toolgate log` shows.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { onTty, run, tempDir, trustEnv } from "../helpers.ts";

const promptOf = (out: string) => out.slice(0, out.indexOf("Allow? [y/n/A]"));

function repoWith(dir: string, server: Record<string, unknown>): string {
  mkdirSync(join(dir, ".git"));
  const config = join(dir, "toolgate.json");
  writeFileSync(config, JSON.stringify({ sandbox: "off", mcpServers: { x: server } }, null, 2));
  return config;
}

const envOf = (home: string, more: Record<string, string> = {}) => ({ XDG_STATE_HOME: join(home, "state"), ...more });

describe("the server start prompt shows the whole command line and its declaration", () => {
  test("a harmless program with a hidden tail: the tail, file:line and NOT trusted are on screen; n starts nothing", async () => {
    await using dir = tempDir();
    const config = repoWith(dir.path, {
      command: "bash",
      args: ["-c", `echo harmless; ${"x".repeat(300)} >/dev/null; touch pwned`],
    });
    const r = await onTty(dir.path, ["tools"], "n\n", envOf(dir.path));
    const prompt = promptOf(r.out);
    // The command is looked up on the caller's PATH at boot: the prompt names the program found.
    expect(prompt).toMatch(/run access to "(\/usr)?\/bin\/bash"/);
    expect(prompt).toContain('MCP server "x"');
    expect(prompt).toContain("touch pwned'");
    expect(prompt).toContain(`Declared in ${config}:4`);
    expect(prompt).toContain("NOT trusted");
    expect(prompt).not.toContain("PARTIAL");
    expect(existsSync(join(dir.path, "pwned"))).toBe(false);
  });

  test("a trusted config says so", async () => {
    await using dir = tempDir();
    const config = repoWith(dir.path, { command: "bash", args: ["-c", "touch pwned"] });
    const r = await onTty(dir.path, ["tools"], "n\n", envOf(dir.path, trustEnv(config)));
    const prompt = promptOf(r.out);
    expect(prompt).toContain(`Declared in ${config}:4, trusted (by TOOLGATE_TRUST)`);
    expect(existsSync(join(dir.path, "pwned"))).toBe(false);
  });

  test("a command line past 4,000 characters: partial, said plainly; the whole is in a 0600 file with its sha256", async () => {
    await using dir = tempDir();
    repoWith(dir.path, { command: "bash", args: ["-c", `echo harmless; : ${"y".repeat(5000)}; touch pwned-tail`] });
    const r = await onTty(dir.path, ["tools"], "n\n", envOf(dir.path));
    const prompt = promptOf(r.out);
    expect(prompt).toContain("PARTIAL");
    expect(prompt).not.toContain("pwned-tail");
    const file = /The whole command line: (\S+)/.exec(prompt)?.[1];
    const sha = /sha256 ([0-9a-f]{64})/.exec(prompt)?.[1];
    const text = readFileSync(file!, "utf8");
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    expect(createHash("sha256").update(text).digest("hex")).toBe(sha!);
    expect(text).toContain("touch pwned-tail");
    expect(existsSync(join(dir.path, "pwned-tail"))).toBe(false);
  });

  test("control characters in the command line are visible, not acted on", async () => {
    await using dir = tempDir();
    repoWith(dir.path, { command: "bash", args: ["-c", "echo \u001b]52;c;cm0gLXJm\u0007 \u202eevil"] });
    const r = await onTty(dir.path, ["tools"], "n\n", envOf(dir.path));
    const prompt = promptOf(r.out);
    expect(prompt).toContain("Command line");
    expect(prompt).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(prompt).toContain("\\u{1b}]52;c;cm0gLXJm\\u{7}");
  });
});

describe("one call, one prompt", () => {
  const ORDINARY = join(import.meta.dir, "..", "fixtures", "mcp", "ordinary.ts");
  const prompts = (out: string) => out.split("Allow? [y/n/A]").length - 1;

  test("a call of a server's tool asks for the start once, whether the boot lists the server or the cache does", async () => {
    await using dir = tempDir();
    repoWith(dir.path, { command: process.execPath, args: [ORDINARY] });
    const cold = await onTty(dir.path, ["call", "x__weather", "{}", "--approve", "all"], "y\ny\n", envOf(dir.path));
    expect([cold.code, prompts(cold.out)]).toEqual([0, 1]);
    expect(cold.out).toContain('"status":"success"');
    // Listed now (the catalog cache): the call's permission step asks, and the connect does not again.
    const warm = await onTty(dir.path, ["call", "x__weather", "{}", "--approve", "all"], "y\ny\n", envOf(dir.path));
    expect([warm.code, prompts(warm.out)]).toEqual([0, 1]);
    expect(warm.out).toContain('MCP server "x"');
    // A no at that one prompt refuses the call naming the flag; nothing is asked again.
    const no = await onTty(dir.path, ["call", "x__weather", "{}", "--approve", "all"], "n\nn\n", envOf(dir.path));
    expect([no.code, prompts(no.out)]).toEqual([4, 1]);
    expect(no.out).toContain("--allow-run=");
  });
});

describe("server starts and refusals leave a journal row", () => {
  const logOf = async (cwd: string) =>
    (await run(["log", "--json"], { cwd, env: envOf(cwd) })).stdout
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));

  test("a start refused at the prompt: a server_refused row; a start granted: a server_started row with the command line", async () => {
    await using dir = tempDir();
    const config = repoWith(dir.path, { command: "bash", args: ["-c", "touch started; exit 0"] });
    await onTty(dir.path, ["tools"], "n\n", envOf(dir.path));
    expect(existsSync(join(dir.path, "started"))).toBe(false);
    await run(["tools", "--allow-run=bash"], { cwd: dir.path, env: envOf(dir.path) });
    expect(existsSync(join(dir.path, "started"))).toBe(true);
    const rows = (await logOf(dir.path)).filter((r) => r.tool === "mcp.connect:x");
    expect(rows.map((r) => [r.event, r.status])).toEqual([
      ["server_refused", "refused"],
      ["server_started", "started"],
    ]);
    expect(rows[1].args_preview).toContain("touch started");
    expect(JSON.parse(rows[1].detail).declared).toBe(`${config}:4`);
    const human = await onTty(dir.path, ["log"], "", envOf(dir.path));
    expect(human.out).toContain("mcp.connect:x");
  });

  test("a state folder that cannot hold the row: the server is not started", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, ".git"));
    writeFileSync(join(dir.path, "st"), "a file, not a folder");
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({
        sandbox: "off",
        state: "st",
        mcpServers: { x: { command: "bash", args: ["-c", "touch started; exit 0"] } },
      }),
    );
    const r = await run(["tools", "--allow-run=bash"], { cwd: dir.path, env: envOf(dir.path) });
    expect(existsSync(join(dir.path, "started"))).toBe(false);
    expect(r.stderr).toContain("journal row cannot be written");
  });
});

describe("a yes covers the start it was shown", () => {
  test("two servers with the same program: each command line is shown and asked for", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, ".git"));
    const server = (file: string) => ({ command: "bash", args: ["-c", `touch ${file}; exit 0`] });
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({ sandbox: "off", mcpServers: { a: server("from-a"), b: server("from-b") } }, null, 2),
    );
    const r = await onTty(dir.path, ["tools"], "y\nn\n", envOf(dir.path));
    expect(r.out).toContain("touch from-a");
    expect(r.out).toContain("touch from-b");
    expect(existsSync(join(dir.path, "from-b"))).toBe(false);
  });
});
