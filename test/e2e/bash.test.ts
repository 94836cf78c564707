// bash end to end against dist/toolgate: the happy path, bash.exit, a timeout, the refusals
// before anything runs, and the child's environment whatever the binary's parent holds.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BASE_ENV } from "../../src/launcher/env.ts";
import { gone } from "../launcher/support.ts";
import { BIN, json, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

const GRANT = ["--allow-run=bash", "--approve", "bash"];
const bash = (cwd: string, args: object, extra: string[] = GRANT, env?: Record<string, string>) =>
  run(["call", "bash", JSON.stringify(args), ...extra], { cwd, ...(env ? { env } : {}) });

describe("bash through the binary", () => {
  test("success: exit 0, one JSON result with code, tails and totals", async () => {
    await using dir = tempDir();
    const r = await bash(dir.path, { command: "echo hello > made.txt; cat made.txt; printf 'x%.0s' {1..5}" });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n").length).toBe(1);
    const out = json(r);
    expect(out).toMatchObject({
      status: "success",
      tool: "bash",
      payload: {
        exitCode: 0,
        ended: "exited",
        sandbox: "off",
        stdout: { tail: "hello\nxxxxx", bytes: 11, chars: 11, truncated: false },
      },
    });
    expect(existsSync(join(dir.path, "made.txt"))).toBe(true);
  });

  test("the result carries the audit view: the working folder, the environment's names (no values), the shell and the command's executable", async () => {
    await using dir = tempDir();
    const r = await bash(dir.path, { command: "ls -a" }, GRANT, { SECRET_TOKEN: "tok-value-123" });
    expect(r.code).toBe(0);
    const out = json(r);
    expect(out.payload.audit).toEqual({
      cwd: realpathSync(dir.path),
      envKeys: Object.keys({ ...BASE_ENV, HOME: "" }).sort(),
      executable: realpathSync("/bin/bash"),
      commandExecutable: realpathSync(Bun.which("ls", { PATH: BASE_ENV.PATH })!),
    });
    expect(r.stdout).not.toContain("tok-value-123");
    // A refusal carries it too; a shell word names no executable.
    const failed = json(await bash(dir.path, { command: "exit 3" }));
    expect([failed.error_code, failed.details.audit.commandExecutable, failed.details.audit.executable]).toEqual([
      "bash.exit",
      null,
      realpathSync("/bin/bash"),
    ]);
  });

  test("a non-zero exit: bash.exit with the code and both tails, exit 1", async () => {
    await using dir = tempDir();
    const r = await bash(dir.path, { command: "echo out; echo err >&2; exit 42" });
    expect(r.code).toBe(1);
    const out = json(r);
    expect(out).toMatchObject({
      status: "failed",
      tool: "bash",
      error_code: "bash.exit",
      details: { exitCode: 42, ended: "exited", stdout: { tail: "out\n" } },
    });
    expect(out.details.stderr.tail.endsWith("err\n")).toBe(true);
    expect(r.stderr).toContain("bash.exit");
  });

  test("a timeout: bash.timeout, exit 1, and the command's processes are gone", async () => {
    await using dir = tempDir();
    const r = await bash(dir.path, { command: 'sleep 1000 & echo "pid $!"; wait', timeout_secs: 0.5 });
    expect(r.code).toBe(1);
    const out = json(r);
    expect(out).toMatchObject({ error_code: "bash.timeout", details: { ended: "timeout", exitCode: null } });
    const pid = Number(/pid (\d+)/.exec(out.details.stdout.tail)![1]);
    expect(gone(pid)).toBe(true);
  });

  test("the configured maximum bounds timeout_secs", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "toolgate.json"), '{"bash":{"max_timeout_secs":10}}');
    const r = await bash(dir.path, { command: "true", timeout_secs: 11 });
    expect([r.code, json(r).error_code]).toEqual([1, "bash.timeout_above_max"]);
  });

  test.each([
    ["without --allow-run=bash: denied, naming the flag", ["--approve", "bash"], "permission.denied"],
    ["with a run grant for another program", ["--allow-run=git", "--approve", "bash"], "permission.denied"],
    ["without approval: approval.required", ["--allow-run=bash"], "approval.required"],
  ])("%s (exit 4, nothing runs)", async (_name, flags, code) => {
    await using dir = tempDir();
    const r = await bash(dir.path, { command: "touch ran.txt" }, flags);
    expect([r.code, json(r).error_code]).toEqual([4, code]);
    expect(existsSync(join(dir.path, "ran.txt"))).toBe(false);
  });

  test("the child's environment is the scrubbed one: the binary's AWS_SECRET_ACCESS_KEY, NODE_OPTIONS and LD_PRELOAD never arrive", async () => {
    await using dir = tempDir();
    const parent = {
      AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      NODE_OPTIONS: "--max-old-space-size=64",
      LD_PRELOAD: "libtoolgate-absent.so",
      KEEP_OUT: "1",
    };
    const r = await bash(dir.path, { command: "exec /usr/bin/env" }, GRANT, parent);
    expect(r.code).toBe(0);
    const seen = json(r).payload.stdout.tail as string;
    // What a login bash makes of exactly the scrubbed environment and an empty HOME, started by hand in the same folder.
    await using empty = tempDir();
    const ref = Bun.spawnSync(["/bin/bash", "-lc", "exec /usr/bin/env"], {
      env: { ...BASE_ENV, HOME: empty.path },
      cwd: dir.path,
    });
    const lines = (s: string) =>
      s
        .split("\n")
        .filter((l) => l && !l.startsWith("HOME="))
        .sort();
    expect(lines(seen)).toEqual(lines(ref.stdout.toString()));
    for (const name of [...Object.keys(parent), "CI"]) expect(seen).not.toMatch(new RegExp(`^${name}=`, "m"));
    // HOME is the run's own empty folder in the state folder, never the caller's.
    expect(seen).toMatch(new RegExp(`^HOME=${dir.path}/\\.toolgate/home/\\d+-[0-9a-f]{32}$`, "m"));
  });

  test("--verbose states the sandbox mode on stderr; stdout stays the result", async () => {
    await using dir = tempDir();
    const r = await bash(dir.path, { command: "true" }, [...GRANT, "--verbose"]);
    expect(r.stderr).toContain("toolgate: sandbox: off (the scrubbed environment only: no isolation)");
    expect(json(r).status).toBe("success");
  });
});
