// End to end: `toolgate completions bash|zsh|fish` prints a script each shell runs: commands, each
// command's flags, actions, and tool names asked of `toolgate tools --names` (the catalog cache: no
// server is started). bash is driven through COMP_WORDS, zsh with compadd and _describe standing in
// for its completion system, fish with `complete -C`.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { specOf } from "../../src/cli/completion-spec.ts";
import { mainDef } from "../../src/main.ts";
import { BIN, run, tempDir } from "../helpers.ts";

const MORTAL = join(import.meta.dir, "..", "fixtures", "mcp", "mortal.ts");
const env = (ws: string) => ({ PATH: `${dirname(BIN)}:/usr/bin:/bin`, HOME: ws, CI: "true" });

async function shell(argv: string[], ws: string): Promise<string[]> {
  const proc = Bun.spawn(argv, { cwd: ws, env: env(ws), stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`${argv[0]} exited ${code}: ${err}`);
  return out.split(/\s+/).filter(Boolean);
}

/** What bash completes for `words`, the last one being completed. */
const bash = (ws: string, words: string[]) =>
  shell(
    [
      "bash",
      "-c",
      `source <(toolgate completions bash); COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _toolgate; echo "\${COMPREPLY[@]}"`,
    ],
    ws,
  );

/** What zsh's _toolgate offers (compadd and _describe print their candidates; zsh itself would narrow them to the prefix). */
const zsh = (ws: string, words: string[]) =>
  shell(
    [
      "zsh",
      "-fc",
      `autoload -Uz compinit && compinit -u -D
source <(toolgate completions zsh)
compadd() { local a; for a in "$@"; do [[ $a == -- ]] || print -r -- "$a"; done }
_describe() { local -a arr; arr=("\${(@P)4}"); print -rl -- "\${arr[@]%%:*}" }
_files() { print -r -- "<files$*>" }
words=(${words.map((w) => `'${w}'`).join(" ")}); CURRENT=${words.length}; _toolgate`,
    ],
    ws,
  );

/** What fish completes for the command line (candidates without their descriptions). */
const fish = async (ws: string, line: string) =>
  await shell(
    [
      "fish",
      "--no-config",
      "-c",
      `toolgate completions fish | source; complete -C ${JSON.stringify(line)} | string replace -r '\\t.*' ''; true`,
    ],
    ws,
  );

const TOOLS_F = ["file_edit", "file_find", "file_read", "file_search", "file_write"];

describe("toolgate completions", () => {
  test.each([
    [["tcsh"], 'no completion script for the shell "tcsh"'],
    [[], "completions needs the shell to complete for"],
    [["bash", "zsh"], 'unexpected argument "zsh"'],
  ])("%p is a usage error (exit 2) naming the shells", async (args, message) => {
    await using ws = tempDir();
    const r = await run(["completions", ...args], { cwd: ws.path });
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toContain(message);
    if (args.length < 2) expect(r.stderr).toContain("the shells are: bash, zsh, fish");
  });

  test.each([["bash"], ["zsh"], ["fish"]])("%s: the script parses", async (sh) => {
    await using ws = tempDir();
    const script = (await run(["completions", sh], { cwd: ws.path })).stdout;
    writeFileSync(join(ws.path, "script"), script);
    const check = Bun.spawnSync(sh === "fish" ? ["fish", "--no-execute", "script"] : [sh, "-n", "script"], {
      cwd: ws.path,
    });
    expect({ sh, code: check.exitCode, err: check.stderr.toString() }).toEqual({ sh, code: 0, err: "" });
  });

  test("each command's actions are what the command takes: its refusal of another names them", async () => {
    await using ws = tempDir();
    const commands = (await specOf(mainDef)).commands;
    expect(
      commands
        .filter((c) => Array.isArray(c.actions) && c.actions.length > 0)
        .map((c) => c.name)
        .sort(),
    ).toEqual(["approvals", "completions", "config", "session", "tasks"]);
    for (const { name: command, actions } of commands) {
      if (!Array.isArray(actions) || actions.length === 0) continue;
      const r = await run([command, "bogus"], { cwd: ws.path });
      expect({ command, code: r.code }).toEqual({ command, code: 2 });
      for (const a of actions)
        expect({ command, action: a, named: r.stderr.includes(a) }).toEqual({ command, action: a, named: true });
    }
  });
});

describe("bash", () => {
  test.each<[string[], string[]]>([
    [["toolgate", "ca"], ["call"]],
    [
      ["toolgate", "t"],
      ["tools", "trust", "tasks"],
    ],
    [["toolgate", "call", "file_"], TOOLS_F],
    [["toolgate", "--workspace", ".", "tools", "--profile", "scout", "file_r"], ["file_read"]],
    [["toolgate", "call", "--ti"], ["--timeout"]],
    [["toolgate", "log", "--st"], ["--status"]],
    [
      ["toolgate", "tasks", ""],
      ["list", "status", "logs", "cancel", "wait", "prune"],
    ],
    [["toolgate", "approvals", "revoke", "file_r"], ["file_read"]],
    [["toolgate", "help", "ap"], ["approvals"]],
    [
      ["toolgate", "completions", ""],
      ["bash", "zsh", "fish"],
    ],
    [["toolgate", "--vers"], ["--version"]],
    [["toolgate", "call", "--vers"], []],
    [["toolgate", "call", "--timeout", ""], []],
    [["toolgate", "version", ""], []],
  ])("%p → %p", async (words, expected) => {
    await using ws = tempDir();
    expect(await bash(ws.path, words)).toEqual(expected);
  });

  test("--config and --workspace complete files and folders", async () => {
    await using ws = tempDir();
    writeFileSync(join(ws.path, "my.json"), "{}");
    expect(await bash(ws.path, ["toolgate", "--config", "my"])).toEqual(["my.json"]);
    expect(await bash(ws.path, ["toolgate", "--workspace", "my"])).toEqual([]);
  });

  test("an MCP server's tools come from the catalog cache; completing starts no server", async () => {
    await using ws = tempDir();
    const pids = join(ws.path, "pids");
    writeFileSync(
      join(ws.path, "toolgate.json"),
      JSON.stringify({ mcpServers: { m: { command: process.execPath, args: [MORTAL, `--pids-out=${pids}`] } } }),
    );
    expect(await bash(ws.path, ["toolgate", "call", "m__"])).toEqual([]);
    expect(existsSync(pids)).toBe(false);
    await run(["tools", "--allow-run"], { cwd: ws.path }); // lists it once: the cache
    const started = readFileSync(pids, "utf8");
    expect(await bash(ws.path, ["toolgate", "call", "m__"])).toEqual(["m__die", "m__echo", "m__slow"]);
    expect(readFileSync(pids, "utf8")).toBe(started);
  });
});

describe("zsh", () => {
  test.each<[string[], string[]]>([
    [
      ["toolgate", "ca"],
      [
        "call",
        "tools",
        "config",
        "log",
        "trust",
        "serve",
        "session",
        "tasks",
        "auth",
        "approvals",
        "completions",
        "doctor",
        "version",
        "help",
      ],
    ],
    [
      ["toolgate", "call", "--ti"],
      ["--arg", "--background", "--write-scope", "--profile", "--dry-run", "--timeout"],
    ],
    [
      ["toolgate", "session", ""],
      ["start", "stop", "status"],
    ],
    [["toolgate", "--config", ""], ["<files>"]],
    [["toolgate", "--workspace", ""], ["<files-/>"]],
  ])("%p offers %p", async (words, expected) => {
    await using ws = tempDir();
    const offered = await zsh(ws.path, words);
    expect(offered.slice(0, expected.length)).toEqual(expected);
  });

  test("tool names after call, and after approvals revoke", async () => {
    await using ws = tempDir();
    expect(await zsh(ws.path, ["toolgate", "call", "f"])).toEqual(expect.arrayContaining(TOOLS_F));
    expect(await zsh(ws.path, ["toolgate", "approvals", "revoke", "f"])).toEqual(expect.arrayContaining(TOOLS_F));
    expect(await zsh(ws.path, ["toolgate", "approvals", ""])).toEqual(["list", "revoke"]);
  });
});

describe("fish", () => {
  test.each<[string, string[]]>([
    ["toolgate ca", ["call"]],
    ["toolgate call file_", TOOLS_F],
    ["toolgate call --ti", ["--timeout"]],
    ["toolgate --lane x ta", ["tasks"]],
    ["toolgate approvals revoke file_r", ["file_read"]],
    ["toolgate tasks ", ["cancel", "list", "logs", "prune", "status", "wait"]],
    ["toolgate --vers", ["--version"]],
    ["toolgate call --vers", []],
  ])("%p → %p", async (line, expected) => {
    await using ws = tempDir();
    expect(await fish(ws.path, line)).toEqual(expected);
  });
});
