// bash in process, through the real process runner and launcher: the result's shape, bash.exit as
// a reading, timeouts that leave no process behind, the configured maximum, and the tail budget.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { ToolContext } from "../../../src/catalog/declare.ts";
import { BASE_ENV } from "../../../src/launcher/env.ts";
import { processRunner } from "../../../src/runtime/processes.ts";
import bash from "../../../src/tools/shell/bash.ts";
import { clipEnd, streamView } from "../../../src/tools/shell/run-report.ts";
import { gone } from "../../launcher/support.ts";
import { noProcesses, tempDir, toolContext } from "../../helpers.ts";

/** What the entry point's parent environment may hold; none of it reaches the command. */
const PARENT = {
  AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  NODE_OPTIONS: "--require /tmp/evil.js",
  LD_PRELOAD: "/tmp/evil.so",
  HOME: "/home/x",
};

function context(ws: string, config: Record<string, unknown> = {}, processes?: ToolContext["processes"]): ToolContext {
  const signal = new AbortController().signal;
  const stateDir = join(ws, ".toolgate");
  const runner =
    processes ??
    processRunner({ parentEnv: PARENT, stateDir, sandboxMode: "off", sandbox: undefined, secrets: {}, signal });
  return toolContext(ws, { processes: runner, signal, now: () => performance.now(), config });
}

const run = (ws: string, args: { command: string; timeout_secs?: number }, config?: Record<string, unknown>) =>
  bash.handler(args, context(ws, config)) as Promise<any>;

describe("bash", () => {
  test("runs the command as written in the workspace and reports code, tails, totals and duration", async () => {
    await using ws = tempDir();
    const r = await run(ws.path, { command: "pwd; echo 'a  b' | tr a A; echo err >&2" });
    expect(r.ok).toBe(true);
    expect(r.value).toMatchObject({
      exitCode: 0,
      ended: "exited",
      sandbox: "off",
      stdout: { tail: `${ws.path}\nA  b\n`, truncated: false },
    });
    expect(r.value.stdout.bytes).toBe(ws.path.length + 6);
    expect(r.value.stderr.tail.endsWith("err\n")).toBe(true);
    expect(r.value.durationMs).toBeGreaterThanOrEqual(0);
    // Artifacts are named relative to the workspace (the state folder is inside it here).
    expect(r.value.artifacts.stdout).toMatch(/^\.toolgate\/artifacts\/[0-9a-f]{32}\.stdout\.log$/);
  });

  test("a non-zero exit is the refusal bash.exit carrying the code and both tails", async () => {
    await using ws = tempDir();
    const r = await run(ws.path, { command: "echo partial; echo broken >&2; exit 3" });
    expect(r.ok).toBe(false);
    expect(r.refusal.code).toBe("bash.exit");
    expect(r.refusal.message).toContain("exit code 3");
    expect(r.refusal.details).toMatchObject({ exitCode: 3, ended: "exited", stdout: { tail: "partial\n" } });
    expect(r.refusal.details.stderr.tail.endsWith("broken\n")).toBe(true);
  });

  test("a timeout stops the whole tree and says so", async () => {
    await using ws = tempDir();
    const r = await run(ws.path, { command: 'sleep 1000 & echo "pid $!"; echo "pid $$"; wait', timeout_secs: 0.3 });
    expect(r.refusal.code).toBe("bash.timeout");
    expect(r.refusal.details).toMatchObject({ exitCode: null, ended: "timeout" });
    const pids = [...r.refusal.details.stdout.tail.matchAll(/^pid (\d+)$/gm)].map((m: RegExpMatchArray) =>
      Number(m[1]),
    );
    expect(pids.length).toBe(2);
    expect(pids.every(gone)).toBe(true);
  });

  test("the default timeout comes from the config and is bounded by its maximum", async () => {
    await using ws = tempDir();
    const r = await run(ws.path, { command: "sleep 1000" }, { bash: { timeout_secs: 0.2, max_timeout_secs: 5 } });
    expect(r.refusal.code).toBe("bash.timeout");
    expect(r.refusal.message).toContain("0.2 s");
  });

  test("a timeout above the configured maximum is refused before anything starts", async () => {
    await using ws = tempDir();
    const r = (await bash.handler(
      { command: "true", timeout_secs: 900 },
      context(ws.path, { bash: { max_timeout_secs: 60 } }, noProcesses),
    )) as any;
    expect(r).toEqual({
      ok: false,
      refusal: {
        code: "bash.timeout_above_max",
        message:
          "timeout_secs 900 is above the maximum of 60 s; ask for less, or raise bash.max_timeout_secs in toolgate.json",
        details: { timeout_secs: 900, max_timeout_secs: 60 },
      },
    });
  });

  test("needs exactly run:bash", () => {
    expect(
      bash.needs(
        { command: "rm -rf /" },
        { workspace: "/w", scratch: "/w/s", stateDir: "/w/.toolgate", skillDirs: [] },
      ),
    ).toEqual({ ok: true, value: [{ kind: "run", value: "bash" }] });
  });

  test("the command's environment is what a login bash makes of the scrubbed one and an empty HOME: nothing from the parent", async () => {
    await using ws = tempDir();
    await using empty = tempDir();
    const r = await run(ws.path, { command: "exec /usr/bin/env" });
    // The same login shell started by hand with exactly the scrubbed environment and an empty HOME.
    const ref = Bun.spawnSync(["/bin/bash", "-lc", "exec /usr/bin/env"], {
      env: { ...BASE_ENV, HOME: empty.path },
      cwd: ws.path,
    });
    const lines = (s: string) =>
      s
        .split("\n")
        .filter((l) => l && !l.startsWith("HOME="))
        .sort();
    expect(lines(r.value.stdout.tail)).toEqual(lines(ref.stdout.toString()));
    // HOME is a fresh folder of the run's own in the state folder, gone once the run is over.
    expect(r.value.stdout.tail).toMatch(new RegExp(`^HOME=${ws.path}/\\.toolgate/home/\\d+-[0-9a-f]{32}$`, "m"));
    for (const name of Object.keys(PARENT)) if (name !== "HOME") expect(r.value.stdout.tail).not.toContain(`${name}=`);
    expect(r.value.stdout.tail).not.toContain(PARENT.HOME);
  });
});

describe("the tail budget", () => {
  test.each([
    ["fits", "hello", 5, "hello", false],
    ["keeps the end", "abcdef", 3, "def", true],
    ["counts escapes", 'a"b\nc', 5, "b\nc", true],
    ["counts control characters as \\u escapes", "ab\u0001", 6, "\u0001", true],
    ["counts UTF-8 bytes", "aé€😀", 9, "é€😀", true],
    ["never splits a surrogate pair", "a😀", 3, "", true],
  ])("%s", (_name, text, max, kept, cut) => {
    expect(clipEnd(text, max)).toEqual({ text: kept, cut });
    expect(Buffer.byteLength(JSON.stringify(kept)) - 2).toBeLessThanOrEqual(max);
  });

  test("a NUL in output is shown, not left to reject the whole result", () => {
    expect(streamView({ tail: "a\0b", bytes: 3, chars: 3, truncated: false }, 100)).toEqual({
      tail: "a\u2400b",
      bytes: 3,
      chars: 3,
      truncated: false,
    });
  });

  test("three-byte characters: 12,000 of them stay inside the boundary with both streams", () => {
    const v = streamView({ tail: "語".repeat(12_000), bytes: 36_000, chars: 12_000, truncated: true }, 24_000);
    expect(v.tail.length).toBe(8_000);
    expect(v.truncated).toBe(true);
  });
});
