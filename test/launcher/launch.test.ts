import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { LaunchOutcome, LaunchSpec } from "../../src/launcher/types.ts";
import { tempDir } from "../helpers.ts";
import { env, gone, launcherWith, waitFor } from "./support.ts";

const launcher = launcherWith();

async function run(dir: string, argv: string[], extra: Partial<LaunchSpec> = {}): Promise<LaunchOutcome> {
  return launcher.launch({
    argv,
    env: env(),
    cwd: dir,
    deadlineMs: 10_000,
    graceMs: 200,
    artifactsDir: join(dir, "state", "artifacts"),
    ...extra,
  });
}

async function value(dir: string, argv: string[], extra: Partial<LaunchSpec> = {}) {
  const r = await run(dir, argv, extra);
  if (!r.ok) throw new Error(`${r.refusal.code}: ${r.refusal.message}`);
  return r.value;
}

const refusal = (r: LaunchOutcome) => (r.ok ? null : r.refusal);

describe("how a run ended", () => {
  test.each([
    ["an exit code", ["/bin/sh", "-c", "exit 7"], { ended: "exited", code: 7 }],
    ["a clean exit", ["true"], { ended: "exited", code: 0 }],
    ["a SIGSEGV", ["/bin/sh", "-c", "kill -SEGV $$"], { ended: "signalled", signal: "SIGSEGV" }],
    ["a SIGKILL", ["/bin/sh", "-c", "kill -KILL $$"], { ended: "signalled", signal: "SIGKILL" }],
  ] as const)("reports %s", async (_name, argv, ending) => {
    await using dir = tempDir();
    const v = await value(dir.path, [...argv]);
    expect(v).toMatchObject(ending);
    expect(gone(v.pid)).toBe(true);
  });

  test("reports a timeout, and the child is gone", async () => {
    await using dir = tempDir();
    const v = await value(dir.path, ["sleep", "1000"], { deadlineMs: 100 });
    expect(v).toMatchObject({ ended: "timeout", survivors: [], outputAbandoned: false });
    expect(v.durationMs).toBeGreaterThanOrEqual(100);
    expect(gone(v.pid)).toBe(true);
  });

  test("reports a cancel through the AbortSignal, and the child is gone", async () => {
    await using dir = tempDir();
    const marker = join(dir.path, "started");
    const abort = new AbortController();
    const running = run(dir.path, ["/bin/sh", "-c", `touch ${marker}; exec sleep 1000`], { signal: abort.signal });
    await waitFor("the child to start", () => statSync(marker, { throwIfNoEntry: false }) !== undefined);
    abort.abort();
    const r = await running;
    expect(r.ok && r.value.ended).toBe("cancelled");
    expect(r.ok && gone(r.value.pid)).toBe(true);
  });

  test("an already aborted signal starts nothing", async () => {
    await using dir = tempDir();
    const r = await run(dir.path, ["true"], { signal: AbortSignal.abort() });
    expect(refusal(r)?.code).toBe("launch.cancelled");
  });
});

describe("spawn failures", () => {
  test("a program missing from the child's PATH is a typed failure naming the PATH", async () => {
    await using dir = tempDir();
    const r = refusal(await run(dir.path, ["no-such-program-for-toolgate"]));
    expect(r).toMatchObject({
      code: "launch.spawn_failed",
      details: { errno: "ENOENT", program: "no-such-program-for-toolgate" },
    });
    expect(r?.message).toContain("/usr/bin:/bin:/usr/sbin:/sbin");
    // Nothing ran, so no artifact was made.
    expect(existsSync(join(dir.path, "state"))).toBe(false);
  });

  test("a missing absolute program is ENOENT", async () => {
    await using dir = tempDir();
    expect(refusal(await run(dir.path, [join(dir.path, "absent")]))).toMatchObject({
      code: "launch.spawn_failed",
      details: { errno: "ENOENT" },
    });
  });

  test("a file that is not executable is EACCES", async () => {
    await using dir = tempDir();
    const script = join(dir.path, "script.sh");
    writeFileSync(script, "echo hi\n");
    chmodSync(script, 0o644);
    expect(refusal(await run(dir.path, [script]))).toMatchObject({
      code: "launch.spawn_failed",
      details: { errno: "EACCES" },
    });
  });

  test("a missing working folder is named as such", async () => {
    await using dir = tempDir();
    const r = refusal(await run(dir.path, ["true"], { cwd: join(dir.path, "nowhere") }));
    expect(r?.code).toBe("launch.spawn_failed");
    expect(r?.message).toContain("working folder");
  });

  test.each([
    ["an empty argv", { argv: [] }],
    ["a relative cwd", { cwd: "relative" }],
    ["a zero deadline", { deadlineMs: 0 }],
    ["a NaN deadline", { deadlineMs: Number.NaN }],
    ["a NUL in an argument", { argv: ["echo", "a\0b"] }],
  ])("refuses %s", async (_name, extra) => {
    await using dir = tempDir();
    expect(refusal(await run(dir.path, ["true"], extra))?.code).toBe("launch.invalid");
  });
});

describe("input and the sandbox hook", () => {
  test.each([
    ["a string", "hello\nwörld\n"],
    ["bytes", new TextEncoder().encode("hello\nwörld\n")],
  ])("delivers stdin data given as %s", async (_name, stdin) => {
    await using dir = tempDir();
    const v = await value(dir.path, ["cat"], { stdin });
    expect(v.stdout).toEqual({ tail: "hello\nwörld\n", bytes: 13, chars: 12, truncated: false });
  });

  test("stdin data the child never reads does not hold up the run", async () => {
    await using dir = tempDir();
    expect(await value(dir.path, ["true"], { stdin: "x".repeat(4 * 1024 * 1024) })).toMatchObject({
      ended: "exited",
      code: 0,
    });
  });

  test("without stdin data the child reads end of file at once", async () => {
    await using dir = tempDir();
    expect((await value(dir.path, ["cat"])).stdout.bytes).toBe(0);
  });

  test("runs in the given folder", async () => {
    await using dir = tempDir();
    expect((await value(dir.path, ["pwd"])).stdout.tail).toBe(`${dir.path}\n`);
  });

  test("the sandbox hook rewrites the argv and sees the cwd and environment", async () => {
    await using dir = tempDir();
    const seen: unknown[] = [];
    const v = await value(dir.path, ["echo", "inner"], {
      sandbox: {
        name: "test",
        wrap: (argv, ctx) => {
          seen.push({ argv, cwd: ctx.cwd, path: ctx.env.PATH });
          return ["/bin/sh", "-c", 'echo wrapped; exec "$@"', "sh", ...argv];
        },
      },
    });
    expect(v.stdout.tail).toBe("wrapped\ninner\n");
    expect(seen).toEqual([
      {
        argv: ["echo", "inner"],
        cwd: dir.path,
        path: "/usr/bin:/bin:/usr/sbin:/sbin:/opt/homebrew/bin:/usr/local/bin",
      },
    ]);
  });

  // A wrapper that cannot exec the program exits with its own code and message.
  const shellWrapper = {
    name: "shell",
    wrap: (argv: readonly string[]) => ["/bin/sh", "-c", 'exec "$@"', "sh", ...argv],
    startFailure: (code: number, stderr: string) => (code === 127 && stderr.includes("not found") ? "ENOENT" : null),
  };

  test("a program the sandbox wrapper cannot start is a spawn failure carrying the wrapper's stderr", async () => {
    await using dir = tempDir();
    const r = refusal(await run(dir.path, ["no-such-program-for-toolgate"], { sandbox: shellWrapper }));
    if (r?.code !== "launch.spawn_failed") throw new Error(`expected a spawn failure, got ${JSON.stringify(r)}`);
    expect(r.details).toMatchObject({ errno: "ENOENT", program: "no-such-program-for-toolgate" });
    expect(r.details.stderr).toContain("no-such-program-for-toolgate");
    expect(r.message).toContain("shell sandbox");
  });

  test("a program that ran inside the sandbox wrapper reports its own exit", async () => {
    await using dir = tempDir();
    expect(await value(dir.path, ["/bin/sh", "-c", "exit 127"], { sandbox: shellWrapper })).toMatchObject({
      ended: "exited",
      code: 127,
    });
  });
});

describe("artifacts", () => {
  test("are 0600 files with random names in a 0700 folder, holding the full streams", async () => {
    await using dir = tempDir();
    const v = await value(dir.path, ["/bin/sh", "-c", "echo out; echo err >&2"]);
    const folder = join(dir.path, "state", "artifacts");
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    for (const [stream, text] of [
      ["stdout", "out\n"],
      ["stderr", "err\n"],
    ] as const) {
      const path = v.artifacts[stream]!;
      expect(path).toMatch(new RegExp(`^${folder}/[0-9a-f]{32}\\.${stream}\\.log$`));
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(readFileSync(path, "utf8")).toBe(text);
      expect(v[stream].tail).toBe(text);
    }
  });

  test("a stream with no output leaves no file; a run with none makes no folder", async () => {
    await using dir = tempDir();
    const quiet = await value(dir.path, ["true"]);
    expect(quiet.artifacts).toEqual({ stdout: null, stderr: null });
    expect(existsSync(join(dir.path, "state"))).toBe(false);
    const v = await value(dir.path, ["echo", "only stdout"]);
    expect(v.artifacts.stderr).toBeNull();
    expect(readdirSync(join(dir.path, "state", "artifacts"))).toEqual([basename(v.artifacts.stdout!)]);
  });

  test("two runs never share a name", async () => {
    await using dir = tempDir();
    const both = ["/bin/sh", "-c", "echo out; echo err >&2"];
    const [a, b] = await Promise.all([value(dir.path, both), value(dir.path, both)]);
    expect(new Set([a.artifacts.stdout, a.artifacts.stderr, b.artifacts.stdout, b.artifacts.stderr]).size).toBe(4);
  });

  test("an artifact folder that cannot be made fails the run, which still completes and is reaped", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "state"), "a file where the folder should be");
    const ran = join(dir.path, "ran");
    const r = refusal(await run(dir.path, ["/bin/sh", "-c", `echo out; echo err >&2; touch ${ran}`]));
    if (r?.code !== "launch.artifact_error") throw new Error(`expected an artifact error, got ${JSON.stringify(r)}`);
    expect(r.details).toMatchObject({
      stream: "stdout",
      execution: { ended: "exited", code: 0, stdout: { tail: "out\n" }, stderr: { tail: "err\n" } },
    });
    expect(r.details.error).toContain("ENOTDIR");
    expect(statSync(ran).isFile()).toBe(true);
    expect(gone(r.details.execution.pid)).toBe(true);
  });
});
