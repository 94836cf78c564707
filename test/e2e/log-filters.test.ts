// End to end: `toolgate log` filters (--tool, --status, --since, --caller) and --follow, on the
// compiled binary; a filter that cannot be is a usage error (exit 2) before anything is read.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, run, tempDir } from "../helpers.ts";
import { waitFor } from "../support/wait.ts";

const tools = (out: string) =>
  out
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l).tool as string);

async function journaled(ws: string): Promise<void> {
  writeFileSync(join(ws, "README.md"), "one\n");
  await run(["call", "file_read", '{"path":"README.md"}', "--allow-read", "--approve", "file_read"], { cwd: ws }); // success
  await run(["call", "file_read", '{"path":"README.md"}'], { cwd: ws }); // denied (no grant, CI: nobody asked)
  await run(["call", "file_find", '{"pattern":"*.md"}', "--allow-read", "--approve", "file_find"], { cwd: ws }); // success
  await run(["call", "file_read", '{"path":"nope.md"}', "--allow-read", "--approve", "file_read"], { cwd: ws }); // failed file.missing
}

describe("toolgate log filters", () => {
  test("--tool (a glob, repeatable), --status (denied is a refused permission or approval), --since", async () => {
    await using ws = tempDir();
    await journaled(ws.path);
    expect(tools((await run(["log", "--tool", "file_read"], { cwd: ws.path })).stdout)).toEqual([
      "file_read",
      "file_read",
      "file_read",
    ]);
    expect(tools((await run(["log", "--tool", "file_f*", "--tool", "nothing"], { cwd: ws.path })).stdout)).toEqual([
      "file_find",
    ]);
    expect(tools((await run(["log", "--status", "success"], { cwd: ws.path })).stdout)).toEqual([
      "file_read",
      "file_find",
    ]);
    const denied = (await run(["log", "--status", "denied"], { cwd: ws.path })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(denied.map((r) => [r.tool, r.error_code])).toEqual([["file_read", "permission.denied"]]);
    expect(tools((await run(["log", "--status", "failed", "--last", "1"], { cwd: ws.path })).stdout)).toEqual([
      "file_read",
    ]);
    expect(
      tools((await run(["log", "--status", "success,failed", "--tool", "file_find"], { cwd: ws.path })).stdout),
    ).toEqual(["file_find"]);
    expect(tools((await run(["log", "--since", "1h"], { cwd: ws.path })).stdout)).toHaveLength(4);
    expect((await run(["log", "--since", "2999-01-01"], { cwd: ws.path })).stdout).toBe("");
  });

  test("--caller: the calls a session forwarded say so (via: session)", async () => {
    await using ws = tempDir();
    await using user = tempDir();
    const env = { XDG_STATE_HOME: user.path };
    writeFileSync(join(ws.path, "README.md"), "one\n");
    await run(["call", "file_read", '{"path":"README.md"}', "--allow-read", "--approve", "file_read"], {
      cwd: ws.path,
      env,
    });
    expect((await run(["session", "start", "--idle-secs", "60"], { cwd: ws.path, env })).code).toBe(0);
    try {
      await run(["call", "file_find", "{}", "--allow-read", "--approve", "file_find"], { cwd: ws.path, env });
    } finally {
      await run(["session", "stop"], { cwd: ws.path, env });
    }
    expect(tools((await run(["log", "--caller", "session"], { cwd: ws.path, env })).stdout)).toEqual(["file_find"]);
    expect((await run(["log", "--caller", "nobody"], { cwd: ws.path, env })).stdout).toBe("");
  });

  test.each([
    [["--status", "ok"], '--status "ok": not an outcome the journal shows'],
    [["--since", "yesterday"], '--since "yesterday": expected an age'],
    [["--since", "10"], '--since "10": expected an age'],
    [["--resources", "--tool", "x"], "--resources lists created resources"],
    [["--follow", "--resources"], "--resources lists created resources"],
  ])("%p is a usage error (exit 2)", async (args, message) => {
    await using ws = tempDir();
    const r = await run(["log", ...args], { cwd: ws.path });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  test("on a terminal, a filter that matches nothing says so", async () => {
    await using ws = tempDir();
    await journaled(ws.path);
    const { onTerminal } = await import("../helpers.ts");
    const r = await onTerminal(["log", "--tool", "bash"], 100, ws.path);
    expect(r.lines).toEqual(["(no row matches)"]);
  });
});

describe("toolgate log --follow", () => {
  test("prints the window, then each call as it finishes, filtered; Ctrl-C ends it", async () => {
    await using ws = tempDir();
    await journaled(ws.path);
    const proc = Bun.spawn([BIN, "log", "--follow", "--status", "success", "--last", "1"], {
      cwd: ws.path,
      env: { PATH: "/usr/bin:/bin", HOME: ws.path, CI: "true" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const lines: string[] = [];
    const reader = (async () => {
      const decoder = new TextDecoder();
      let buffered = "";
      for await (const chunk of proc.stdout) {
        buffered += decoder.decode(chunk);
        const parts = buffered.split("\n");
        buffered = parts.pop()!;
        lines.push(...parts);
      }
    })();
    const until = (what: string, ok: () => boolean) =>
      waitFor(what, ok).catch((e: Error) => Promise.reject(new Error(`${e.message}: ${JSON.stringify(lines)}`)));
    try {
      await until("the window", () => lines.length === 1);
      expect(JSON.parse(lines[0]!).tool).toBe("file_find");
      await run(["call", "file_read", '{"path":"gone.md"}', "--allow-read", "--approve", "file_read"], {
        cwd: ws.path,
      }); // failed: filtered out
      await run(["call", "bash", '{"command":"sleep 0.5"}', "--allow-run=bash", "--approve", "bash"], { cwd: ws.path });
      await until("the bash call", () => lines.length === 2);
      expect(JSON.parse(lines[1]!)).toMatchObject({ tool: "bash", status: "success", event: "tool_finished" });
    } finally {
      proc.kill("SIGINT");
    }
    expect(await proc.exited).not.toBe(0);
    await reader;
    expect(lines.map((l) => JSON.parse(l).tool)).toEqual(["file_find", "bash"]);
  });

  test("a call running when the window is printed is printed again once it ends", async () => {
    await using ws = tempDir();
    // The call runs until the test lets it end (it waits, bounded, for a file): still running when
    // the window is printed, however slow the machine.
    const command = "i=0; while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; [ -e go ]";
    const call = Bun.spawn(
      [BIN, "call", "bash", JSON.stringify({ command }), "--allow-run=bash", "--approve", "bash"],
      { cwd: ws.path, env: { PATH: "/usr/bin:/bin", HOME: ws.path, CI: "true" }, stdout: "ignore", stderr: "ignore" },
    );
    await waitFor("the call's running row", async () =>
      (await run(["log", "--status", "running"], { cwd: ws.path })).stdout.includes('"running"'),
    );
    const proc = Bun.spawn([BIN, "log", "--follow"], {
      cwd: ws.path,
      env: { PATH: "/usr/bin:/bin", HOME: ws.path, CI: "true" },
      stdout: "pipe",
      stderr: "pipe",
    });
    let text = "";
    const reader = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout) text += decoder.decode(chunk, { stream: true });
    })();
    const printed = () => text.split("\n").filter(Boolean).length;
    await waitFor("the window", () => printed() === 1);
    writeFileSync(join(ws.path, "go"), "");
    expect(await call.exited).toBe(0);
    await waitFor("the finished call", () => printed() === 2);
    proc.kill("SIGINT");
    await reader;
    const out = text
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(out.map((r) => [r.tool, r.status])).toEqual([
      ["bash", "running"],
      ["bash", "success"],
    ]);
  });
});
