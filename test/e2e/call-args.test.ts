// End to end: `call TOOL @FILE` (arguments from a file), `-` on a terminal says it reads stdin,
// and `--timeout SECS`: this call's deadline, bounded by what the tool allows, for a built-in,
// bash, an authored tool and an MCP server's tool, in the foreground and as a task.
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, onTerminal, run, tempDir } from "../helpers.ts";

const MORTAL = join(import.meta.dir, "..", "fixtures", "mcp", "mortal.ts");
const READ = ["--allow-read", "--approve", "file_read"];

describe("call TOOL @FILE", () => {
  test("reads the arguments from the file, relative to the current folder", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "README.md"), "one\ntwo\n");
    mkdirSync(join(dir.path, "sub"));
    writeFileSync(join(dir.path, "sub", "args.json"), JSON.stringify({ path: "README.md", limit: 1 }));
    const r = await run(["call", "file_read", "@args.json", ...READ, "--workspace", ".."], {
      cwd: join(dir.path, "sub"),
    });
    expect(r.code).toBe(0);
    expect(json(r).payload).toMatchObject({ path: "README.md", lineCount: 1, content: "1\tone" });
  });

  test("--arg pairs add to the file's object", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "README.md"), "one\ntwo\n");
    writeFileSync(join(dir.path, "args.json"), JSON.stringify({ path: "README.md" }));
    const r = await run(["call", "file_read", "@args.json", "--arg", "limit=1", ...READ], { cwd: dir.path });
    expect(json(r).payload.lineCount).toBe(1);
  });

  test.each([
    ["a missing file", "@missing.json", "toolgate: @missing.json: no such file"],
    ["a folder", "@sub", "toolgate: @sub: a folder, not a file"],
    ["no name", "@", "toolgate: @: name the file holding the arguments"],
    ["a file that is not JSON", "@bad.json", "toolgate: @bad.json: not valid JSON"],
  ])("%s is a usage error (exit 2), nothing run or journaled", async (_, arg, message) => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, "sub"));
    writeFileSync(join(dir.path, "bad.json"), "{path:");
    const r = await run(["call", "file_read", arg, ...READ], { cwd: dir.path });
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toStartWith(message);
    const log = await run(["log", "--json"], { cwd: dir.path });
    expect(log.stdout).toBe("");
  });
});

describe("call TOOL - on a terminal", () => {
  test("says on stderr that it reads the arguments from stdin; piped, says nothing", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "README.md"), "one\n");
    // stdin is the pseudo-terminal: Ctrl-D (EOF) right away, so the JSON is empty and refused (exit 2).
    const r = await onTerminal(["call", "file_read", "-", ...READ], 100, dir.path);
    expect(r.lines.join("\n")).toContain(
      "toolgate: reading the arguments (one JSON object) from stdin; end with Ctrl-D",
    );
    const piped = await run(["call", "file_read", "-", ...READ], { cwd: dir.path, stdin: '{"path":"README.md"}' });
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe("");
  });
});

describe("call --timeout SECS", () => {
  test.each([["0"], ["-1"], ["soon"], ["1e9"], [""]])("%p is a usage error (exit 2)", async (value) => {
    await using dir = tempDir();
    const r = await run(["call", "file_read", "{}", "--timeout", value, ...READ], { cwd: dir.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--timeout");
    expect(r.stderr).toContain("expected a number of seconds");
  });

  test("bash: the command is stopped at the caller's deadline, its own refusal naming --timeout", async () => {
    await using dir = tempDir();
    const started = performance.now();
    const r = await run(
      ["call", "bash", '{"command":"sleep 30"}', "--timeout", "1", "--allow-run=bash", "--approve", "bash"],
      { cwd: dir.path },
    );
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(r.code).toBe(1);
    expect(json(r)).toMatchObject({ status: "failed", error_code: "bash.timeout", details: { ended: "timeout" } });
    expect(json(r).message).toContain("timeout after 1 s; pass a larger --timeout (at most 600)");
  });

  test("bash: --timeout replaces the default (120 s) up to bash.max_timeout_secs; past it, cut with a note", async () => {
    await using dir = tempDir();
    const r = await run(
      ["call", "bash", '{"command":"true"}', "--timeout", "900", "--allow-run=bash", "--approve", "bash"],
      { cwd: dir.path },
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      "toolgate: --timeout 900: bash may run at most 600 s (bash.max_timeout_secs); the call's deadline is 600 s\n",
    );
    const quiet = await run(
      ["call", "bash", '{"command":"true"}', "--timeout", "900", "--quiet", "--allow-run=bash", "--approve", "bash"],
      { cwd: dir.path },
    );
    expect([quiet.code, quiet.stderr]).toEqual([0, ""]);
  });

  test("a built-in: bounded by the default deadline of a call (300 s)", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "README.md"), "one\n");
    const r = await run(["call", "file_read", '{"path":"README.md"}', "--timeout", "301", ...READ], { cwd: dir.path });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      "toolgate: --timeout 301: file_read may run at most 300 s (the deadline of a built-in's call); the call's deadline is 300 s\n",
    );
  });

  test("an authored tool: stopped at --timeout (authored.timeout naming it); bounded by its timeout_secs", async () => {
    await using dir = tempDir();
    const folder = join(dir.path, "tools", "slowpoke");
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, "tool.json"),
      JSON.stringify({
        name: "slowpoke",
        description: "Sleeps.",
        input_schema: { type: "object" },
        effect: "read",
        approval: "required",
        timeout_secs: 20,
      }),
    );
    writeFileSync(join(folder, "run"), "#!/bin/bash\ncase \"$(cat)\" in *quick*) ;; *) sleep 30 ;; esac\necho '{}'\n");
    chmodSync(join(folder, "run"), 0o755);
    const r = await run(["call", "slowpoke", "{}", "--timeout", "1", "--allow-run", "--approve", "slowpoke"], {
      cwd: dir.path,
    });
    expect(r.code).toBe(1);
    expect(json(r)).toMatchObject({
      status: "failed",
      error_code: "authored.timeout",
      message: "slowpoke did not finish within 1 s (--timeout); its process tree was ended",
    });
    const past = await run(
      ["call", "slowpoke", '{"quick":true}', "--timeout", "25", "--allow-run", "--approve", "slowpoke"],
      { cwd: dir.path },
    );
    expect(past.code).toBe(0);
    expect(past.stderr).toContain(
      "toolgate: --timeout 25: slowpoke may run at most 20 s (timeout_secs in slowpoke's tool.json); the call's deadline is 20 s\n",
    );
  });

  test("an MCP tool: no answer within --timeout is indeterminate (exit 3); bounded by the server's timeout_secs", async () => {
    await using dir = tempDir();
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({ mcpServers: { m: { command: process.execPath, args: [MORTAL], timeout_secs: 30 } } }),
    );
    const started = performance.now();
    const r = await run(["call", "m__slow", "{}", "--timeout", "1", "--allow-run", "--approve", "all"], {
      cwd: dir.path,
    });
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(r.code).toBe(3);
    expect(json(r)).toMatchObject({ status: "indeterminate", error_code: "deadline" });
    expect(json(r).message).toStartWith("slow: no answer within 1 s; ");
    const past = await run(
      ["call", "m__echo", '{"message":"hi"}', "--timeout", "60", "--allow-run", "--approve", "all"],
      { cwd: dir.path },
    );
    expect(past.code).toBe(0);
    expect(past.stderr).toContain(
      "toolgate: --timeout 60: m__echo may run at most 30 s (mcpServers.m.timeout_secs); the call's deadline is 30 s\n",
    );
  });

  test("dev_check and other tools that time each of their own runs take any --timeout: it bounds the whole call", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, "script"));
    writeFileSync(join(dir.path, "script", "check-slow.sh"), "sleep 30\n");
    const git = (...a: string[]) =>
      Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", ...a], { cwd: dir.path });
    git("init", "-q");
    git("add", ".");
    git("commit", "-qm", "gate");
    const r = await run(
      ["call", "dev_check", '{"gate":"slow"}', "--timeout", "1", "--allow-run=bash,git", "--approve", "dev_check"],
      { cwd: dir.path },
    );
    expect(r.code).toBe(1);
    expect(json(r)).toMatchObject({
      status: "failed",
      error_code: "deadline",
      message: "dev_check did not finish within 1 s",
    });
    expect(r.stderr).not.toContain("may run at most");
  });

  test("--background: the task's call gets the same deadline", async () => {
    await using dir = tempDir();
    const r = await run(
      [
        "call",
        "bash",
        '{"command":"sleep 30"}',
        "--timeout",
        "1",
        "--background",
        "--allow-run=bash",
        "--approve",
        "bash",
      ],
      { cwd: dir.path },
    );
    expect(r.code).toBe(0);
    const id = json(r).task_id as string;
    const waited = await run(["tasks", "wait", id, "--timeout", "20", "--json"], { cwd: dir.path });
    expect(json(waited)).toMatchObject({ status: "failed", exit_reason: "bash.timeout" });
  });
});
