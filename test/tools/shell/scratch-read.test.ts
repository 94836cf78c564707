// scratch_read in process, through the real process runner: each command, and every refusal
// (a command or flag off the list, an absolute path, `..` and symlinks leading out).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolContext } from "../../../src/catalog/declare.ts";
import { processRunner } from "../../../src/runtime/processes.ts";
import scratchRead, { checkArgv } from "../../../src/tools/shell/scratch-read.ts";
import { noProcesses, tempDir, toolContext } from "../../helpers.ts";

const ws = tempDir("toolgate-scratch-");
const scratch = join(ws.path, ".toolgate", "scratch");

beforeAll(() => {
  mkdirSync(join(scratch, "sub"), { recursive: true });
  writeFileSync(join(scratch, "a.txt"), "one\ntwo\nthree\n");
  writeFileSync(join(scratch, "sub", "b.txt"), "bee\n");
  writeFileSync(join(scratch, "-dash.txt"), "dash\n");
  writeFileSync(join(ws.path, "secret.txt"), "outside the scratch folder\n");
  symlinkSync("../../secret.txt", join(scratch, "out-link"));
  symlinkSync("sub/b.txt", join(scratch, "in-link"));
  symlinkSync("/etc", join(scratch, "etc-link"));
});
afterAll(() => ws[Symbol.asyncDispose]());

function context(processes?: ToolContext["processes"]): ToolContext {
  const signal = new AbortController().signal;
  const runner =
    processes ??
    processRunner({
      parentEnv: { AWS_SECRET_ACCESS_KEY: "x".repeat(20) },
      stateDir: join(ws.path, ".toolgate"),
      sandboxMode: "off",
      sandbox: undefined,
      secrets: {},
      signal,
    });
  return toolContext(ws.path, { scratch, processes: runner, signal });
}

const call = (argv: string[]) => scratchRead.handler({ argv }, context()) as Promise<any>;
const stdout = async (argv: string[]) => {
  const r = await call(argv);
  if (!r.ok) throw new Error(`${r.refusal.code}: ${r.refusal.message}`);
  return r.value.stdout.tail as string;
};

describe("each command", () => {
  test.each([
    ["ls, no path: the scratch folder", ["ls"], "-dash.txt\na.txt\netc-link\nin-link\nout-link\nsub\n"],
    ["ls of a folder, flags combined", ["ls", "-1p", "sub"], "b.txt\n"],
    ["cat", ["cat", "a.txt"], "one\ntwo\nthree\n"],
    ["cat -n", ["cat", "-n", "sub/b.txt"], "     1\tbee\n"],
    ["cat through a link that stays inside", ["cat", "in-link"], "bee\n"],
    ["a path after -- may start with a dash", ["cat", "--", "-dash.txt"], "dash\n"],
    ["wc -l", ["wc", "-l", "a.txt"], "3 a.txt\n"],
    ["head -n N", ["head", "-n", "1", "a.txt"], "one\n"],
    ["head -nN", ["head", "-n2", "a.txt"], "one\ntwo\n"],
    ["head --lines=N", ["head", "--lines=1", "a.txt"], "one\n"],
    ["tail -n +N", ["tail", "-n", "+3", "a.txt"], "three\n"],
    ["tail -c N", ["tail", "-c", "4", "a.txt"], "ree\n"],
    ["file -b", ["file", "-b", "a.txt"], "ASCII text\n"],
    ["file --mime-type", ["file", "--mime-type", "a.txt"], "a.txt: text/plain\n"],
  ])("%s", async (_name, argv, out) => {
    expect(await stdout(argv)).toBe(out);
  });

  test("stat -t: terse, scratch-relative", async () => {
    expect(await stdout(["stat", "-t", "a.txt"])).toMatch(/^a\.txt 14 /);
  });

  test("the result names the argv that ran (checked paths after --) and the exit", async () => {
    const r = await call(["wc", "-c", "sub/../a.txt"]);
    expect(r.value).toEqual({
      argv: ["wc", "-c", "--", "a.txt"],
      exitCode: 0,
      ended: "exited",
      stdout: { tail: "14 a.txt\n", bytes: 9, chars: 9, truncated: false },
      stderr: { tail: "", bytes: 0, chars: 0, truncated: false },
    });
  });

  test("a non-zero exit is the refusal scratch.exit with the tails, naming the path (not the descriptor)", async () => {
    const r = await call(["cat", "sub"]);
    expect(r.refusal.code).toBe("scratch.exit");
    expect(r.refusal.details).toMatchObject({ exitCode: 1, ended: "exited" });
    expect(r.refusal.details.stderr.tail).toBe("cat: sub: Is a directory\n");
  });

  test("a missing path is refused before anything runs: the child is never handed a name", async () => {
    const r = await call(["cat", "missing.txt"]);
    expect(r.refusal.code).toBe("scratch.path_missing");
  });

  test("ls -R is not offered: it would descend by name", async () => {
    expect((await call(["ls", "-R"])).refusal.code).toBe("scratch.flag_refused");
  });

  test("each path reaches the child as a descriptor of what was checked: a file swapped for a link after the check is refused", async () => {
    await using t = tempDir("toolgate-scratch-swap-");
    writeFileSync(join(t.path, "f"), "inside\n");
    const ctx = { ...context(), scratch: t.path, checked: [{ kind: "read" as const, value: join(t.path, "f") }] };
    rmSync(join(t.path, "f"));
    symlinkSync(join(ws.path, "secret.txt"), join(t.path, "f"));
    // The handler works on the path the permission stage checked (f), never on a new lookup of a name.
    writeFileSync(join(t.path, "g"), "other\n");
    const r = (await scratchRead.handler({ argv: ["cat", "g"] }, ctx)) as any;
    expect(r.refusal.code).toBe("path.changed");
  });

  test("head of two files names both paths in its headers", async () => {
    expect(await stdout(["head", "-n", "1", "a.txt", "sub/b.txt"])).toBe(
      "==> a.txt <==\none\n\n==> sub/b.txt <==\nbee\n",
    );
  });
});

describe("refusals (nothing starts)", () => {
  test.each([
    ["a command off the list", ["rm", "a.txt"], "scratch.command_refused"],
    ["a shell", ["bash", "-c", "id"], "scratch.command_refused"],
    ["a prototype name", ["constructor"], "scratch.command_refused"],
    ["an absolute path", ["cat", "/etc/passwd"], "scratch.path_outside"],
    ["a .. escape", ["cat", "../../secret.txt"], "scratch.path_outside"],
    ["a .. escape through a folder", ["cat", "sub/../../secret.txt"], "scratch.path_outside"],
    ["a symlink leading out", ["cat", "out-link"], "scratch.path_outside"],
    ["a symlink to /etc", ["ls", "etc-link"], "scratch.path_outside"],
    ["a path through a symlink leading out", ["cat", "etc-link/passwd"], "scratch.path_outside"],
    ["tail -f (it would wait)", ["tail", "-f", "a.txt"], "scratch.flag_refused"],
    ["following links", ["ls", "-L", "sub"], "scratch.flag_refused"],
    ["a flag hidden in a cluster", ["ls", "-lL"], "scratch.flag_refused"],
    ["a long flag off the list", ["stat", "--dereference", "a.txt"], "scratch.flag_refused"],
    ["a value that is not a count", ["head", "-n", "x", "a.txt"], "scratch.flag_refused"],
    ["a missing value", ["head", "-n"], "scratch.flag_refused"],
    ["stdin", ["cat", "-"], "scratch.flag_refused"],
    ["a NUL", ["cat", "a\0b"], "scratch.path_invalid"],
  ])("%s", async (_name, argv, code) => {
    const r = (await scratchRead.handler({ argv }, context(noProcesses))) as any;
    expect(r.ok).toBe(false);
    expect(r.refusal.code).toBe(code);
  });

  test("a refused flag names the allowed ones", async () => {
    const r = checkArgv(["tail", "-f"], scratch);
    expect(r).toEqual({
      ok: false,
      refusal: {
        code: "scratch.flag_refused",
        message: 'tail does not take "-f" here; allowed: -q -v -n N -c N --lines=N --bytes=N',
        details: { command: "tail", flag: "-f", allowed: "-q -v -n N -c N --lines=N --bytes=N" },
      },
    });
  });

  test("a missing scratch folder is named", async () => {
    expect(checkArgv(["ls"], join(ws.path, "nope"))).toMatchObject({ ok: false, refusal: { code: "scratch.missing" } });
  });
});

describe("needs", () => {
  const nctx = { workspace: ws.path, scratch, stateDir: join(ws.path, ".toolgate"), skillDirs: [] };
  test("read of each checked real path, or of the scratch folder without one", () => {
    expect(scratchRead.needs({ argv: ["cat", "in-link", "a.txt"] }, nctx)).toEqual({
      ok: true,
      value: [
        { kind: "read", value: join(scratch, "sub", "b.txt") },
        { kind: "read", value: join(scratch, "a.txt") },
      ],
    });
    expect(scratchRead.needs({ argv: ["ls", "-l"] }, nctx)).toEqual({
      ok: true,
      value: [{ kind: "read", value: scratch }],
    });
  });

  test("a path leading out is refused before any permission is asked", () => {
    expect(scratchRead.needs({ argv: ["cat", "out-link"] }, nctx)).toMatchObject({
      ok: false,
      refusal: { code: "scratch.path_outside" },
    });
  });
});
