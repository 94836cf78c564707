// The guardian (src/launcher/guard.ts) through the real launcher, started from source (bun
// src/main.ts __guard), cold and warm (started ahead, told its command on fd 3): it relays stdin,
// the exact environment and folder, the exit code and the signal, and a command it cannot start is
// a spawn failure. End to end (kill -9 of the binary) is test/security/kill-call.test.ts.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openSync } from "node:fs";
import { startWarm, warmGuard, type WarmGuard } from "../../src/launcher/guard.ts";
import type { LaunchSpec } from "../../src/launcher/types.ts";
import { BIN, ROOT, run, tempDir } from "../helpers.ts";
import { env, gone, launcherWith, waitFor } from "./support.ts";

const SELF = [process.execPath, join(ROOT, "src", "main.ts")];
const launcher = launcherWith();

async function launch(warm: boolean, spec: Partial<LaunchSpec> & { argv: string[] }) {
  await using dir = tempDir();
  if (warm) warmGuard(SELF);
  const r = await launcher.launch({
    env: env({ values: { ONLY: "this" } }),
    cwd: dir.path,
    deadlineMs: 20_000,
    artifactsDir: join(dir.path, "a"),
    guard: SELF,
    ...spec,
  });
  return { r, dir: dir.path };
}

describe.each([
  ["cold", false],
  ["warm", true],
] as const)("a %s guardian", (_name, warm) => {
  test("relays stdin, the exact environment and folder, and the exit code", async () => {
    const script =
      'read line; echo "got $line in $(pwd)"; tr "\\0" " " < /proc/$PPID/cmdline; echo; /usr/bin/env | sort; exit 3';
    const { r, dir } = await launch(warm, { argv: ["/bin/sh", "-c", script], stdin: "hello\n" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({ ended: "exited", code: 3 });
    const lines = r.value.stdout.tail.split("\n").filter(Boolean);
    expect(lines[0]).toBe(`got hello in ${dir}`);
    // Its parent is the guardian.
    expect(lines[1]).toContain(` __guard ${process.pid} ${warm ? "--wait" : "--"}`);
    expect(
      lines.slice(2).filter((l) => !l.startsWith("PWD=") && !l.startsWith("SHLVL=") && !l.startsWith("_=")),
    ).toEqual([
      "LANG=C.UTF-8",
      "LC_ALL=C.UTF-8",
      "ONLY=this",
      "PATH=/usr/bin:/bin:/usr/sbin:/sbin:/opt/homebrew/bin:/usr/local/bin",
    ]);
  }, 30_000);

  test("a command killed by a signal is reported signalled with that signal", async () => {
    const { r } = await launch(warm, { argv: ["/bin/sh", "-c", "kill -TERM $$"] });
    expect(r.ok ? r.value : r.refusal).toMatchObject({ ended: "signalled", signal: "SIGTERM" });
  }, 30_000);

  test("a command that closes its stdin unread, a megabyte of it still to come, ran: no spawn failure", async () => {
    const { r } = await launch(warm, { argv: ["/bin/sh", "-c", "exec 0<&-; echo done"], stdin: "x".repeat(1 << 20) });
    expect(r.ok ? r.value : r.refusal).toMatchObject({ ended: "exited", code: 0, stdout: { tail: "done\n" } });
  }, 30_000);

  test("a program it cannot start is a spawn failure naming it", async () => {
    const { r } = await launch(warm, { argv: ["no-such-program-for-toolgate"] });
    expect(r.ok ? r.value : r.refusal).toMatchObject({
      code: "launch.spawn_failed",
      details: { errno: "ENOENT", program: "no-such-program-for-toolgate" },
    });
  }, 30_000);
});

test("a warm guardian whose command ended before its stdin was written (a busy machine) was still told its command", () => {
  // The guardian read the command on fd 3, ran it and is gone: the stdin pipe then refuses (EPIPE).
  const control = openSync("/dev/null", "w");
  const gone = () => {
    throw Object.assign(new Error("EPIPE: broken pipe, write"), { code: "EPIPE" });
  };
  const proc = { stdin: { write: gone, end: gone } } as unknown as WarmGuard["proc"];
  expect(() => startWarm({ proc, control }, { argv: ["true"], env: {}, cwd: "/" }, new Uint8Array([1]))).not.toThrow();
  // Any other error is still one.
  const broken = {
    stdin: {
      write: () => {
        throw new Error("EBADF");
      },
      end: () => 0,
    },
  } as unknown as WarmGuard["proc"];
  expect(() =>
    startWarm(
      { proc: broken, control: openSync("/dev/null", "w") },
      { argv: ["true"], env: {}, cwd: "/" },
      new Uint8Array([1]),
    ),
  ).toThrow("EBADF");
});

test("a guardian started for a call that never runs its command ends with the call (nothing waits on it)", async () => {
  await using dir = tempDir();
  // No --allow-run: the call is refused after the guardian was started ahead of it.
  const started = performance.now();
  const r = await run(["call", "bash", '{"command":"true"}', "--approve", "bash"], { cwd: dir.path });
  expect(r.code).toBe(4);
  expect(performance.now() - started).toBeLessThan(5_000);
  const guards = () =>
    Bun.spawnSync(["pgrep", "-f", `^${BIN} __guard`])
      .stdout.toString()
      .split("\n")
      .filter(Boolean)
      .map(Number);
  await waitFor("no guardian left", () => guards().every(gone), 3_000);
});
