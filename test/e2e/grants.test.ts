// Every grant a call lacks, at once. With nobody to ask (CI), a call missing several grants is
// refused once, naming each permission flag and the approval in details.flags (one argv word each)
// and in one line; run again with exactly those, it runs. A deny names its rule, never an allow
// flag that could not help (a script following details.flags would loop).
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../fixtures/gates/make-repo.ts";
import { BIN, json, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

describe("the grants a call lacks", () => {
  test("dev_check with a JUnit report: one refusal names every flag and the approval; following them once, it runs", async () => {
    await using d = tempDir();
    const ws = join(d.path, "ws");
    mkdirSync(join(ws, "script"), { recursive: true });
    writeFileSync(join(ws, "script", "check-ok.sh"), "echo fine\n");
    writeFileSync(join(ws, ".gitignore"), ".toolgate/\nreports/\n");
    git(ws, "init", "-q", "-b", "main");
    git(ws, "add", "-A");
    git(ws, "commit", "-q", "-m", "fixture");
    const args = ["call", "dev_check", '{"gate":"all","junit":"reports/j.xml"}'];
    const first = await run(args, { cwd: ws, env: { CI: "true" } });
    expect(first.code).toBe(4);
    const refused = json(first);
    expect(refused.error_code).toBe("permission.denied");
    const flags: string[] = refused.details.flags;
    expect(flags).toEqual([
      "--allow-run=bash",
      "--allow-run=git",
      "--allow-write=reports",
      "--allow-write=reports/j.xml",
      "--approve=dev_check",
    ]);
    expect(refused.details.flag).toBe(flags[0]);
    expect(refused.message).toContain(`this call needs, in all: ${flags.join(" ")}`);
    const second = await run([...args, ...flags], { cwd: ws, env: { CI: "true" } });
    expect([second.code, json(second).status]).toEqual([0, "success"]);
    expect(existsSync(join(ws, "reports", "j.xml"))).toBe(true);
  }, 60_000);

  test("asked from a subfolder: paths inside the workspace are written relative to it (up with ..), outside it absolute; following the flags, it runs", async () => {
    await using d = tempDir();
    const ws = join(d.path, "ws");
    mkdirSync(join(ws, "sub"), { recursive: true });
    writeFileSync(join(ws, "top.txt"), "top\n");
    writeFileSync(join(ws, "sub", "a.txt"), "a\n");
    const sub = join(ws, "sub");
    const args = ["call", "file_read", '{"path":"top.txt"}', "--workspace", "..", "--approve", "file_read"];
    const first = await run(args, { cwd: sub, env: { CI: "true" } });
    expect([first.code, json(first).details]).toEqual([
      4,
      { flag: "--allow-read=../top.txt", flags: ["--allow-read=../top.txt"] },
    ]);
    const second = await run([...args, ...json(first).details.flags], { cwd: sub, env: { CI: "true" } });
    expect([second.code, json(second).payload.content]).toEqual([0, "1\ttop"]);
    // A flag written relative to the subfolder grants there, not at the workspace's root.
    const own = await run(
      [
        "call",
        "file_read",
        '{"path":"sub/a.txt"}',
        "--workspace",
        "..",
        "--approve",
        "file_read",
        "--allow-read=a.txt",
      ],
      { cwd: sub },
    );
    expect([own.code, json(own).payload.content]).toEqual([0, "1\ta"]);
    const root = await run(
      [
        "call",
        "file_read",
        '{"path":"top.txt"}',
        "--workspace",
        "..",
        "--approve",
        "file_read",
        "--allow-read=top.txt",
      ],
      { cwd: sub },
    );
    expect([root.code, json(root).details.flag]).toEqual([4, "--allow-read=../top.txt"]);
    // Run from outside the workspace, the flag names the real path.
    const outside = await run(
      ["call", "file_read", '{"path":"top.txt"}', "--workspace", ws, "--approve", "file_read"],
      { cwd: d.path },
    );
    expect([outside.code, json(outside).details.flag]).toEqual([
      4,
      `--allow-read=${join(realpathSync(ws), "top.txt")}`,
    ]);
  });

  test("one missing grant: its flag alone, the message as before; an approval already given is not asked for", async () => {
    await using d = tempDir();
    writeFileSync(join(d.path, "a.txt"), "x\n");
    const r = await run(["call", "file_read", '{"path":"a.txt"}', "--approve", "file_read"], {
      cwd: d.path,
      env: { CI: "true" },
    });
    expect(r.code).toBe(4);
    expect(json(r).details).toEqual({ flag: "--allow-read=a.txt", flags: ["--allow-read=a.txt"] });
    expect(json(r).message).not.toContain("in all");
  });

  test("a deny names the rule that refused, and no allow flag", async () => {
    await using d = tempDir();
    writeFileSync(join(d.path, "a.txt"), "x\n");
    const r = await run(
      ["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--deny-read=a.txt", "--approve", "file_read"],
      { cwd: d.path, env: { CI: "true" } },
    );
    expect(r.code).toBe(4);
    const out = json(r);
    expect(out.details).toEqual({ denied_by: `--deny-read=${d.path}/a.txt` });
    expect(out.message).toContain("deny wins over allow");
  });
});

describe("call --dry-run", () => {
  test("says what the call needs and whether it would run now; nothing is asked, run or journaled", async () => {
    await using d = tempDir();
    writeFileSync(join(d.path, "a.txt"), "x\n");
    const journal = async () => (await run(["log", "--json"], { cwd: d.path, env: { CI: "true" } })).stdout.trim();
    const before = await journal();
    const lacking = await run(["call", "bash", '{"command":"touch ran"}', "--dry-run"], { cwd: d.path });
    expect([lacking.code, json(lacking).payload]).toEqual([
      0,
      {
        dry_run: true,
        would_run: false,
        needs: [{ kind: "run", value: "bash" }],
        approval: "needed",
        flags: ["--allow-run=bash", "--approve=bash"],
      },
    ]);
    const ready = await run(
      ["call", "bash", '{"command":"touch ran"}', "--dry-run", "--allow-run=bash", "--approve", "bash"],
      { cwd: d.path },
    );
    expect(json(ready).payload).toMatchObject({ would_run: true, approval: "given", flags: [] });
    expect(existsSync(join(d.path, "ran"))).toBe(false);
    expect(await journal()).toBe(before);
    const both = await run(["call", "bash", '{"command":"x"}', "--dry-run", "--background"], { cwd: d.path });
    expect(both.code).toBe(2);
  });
});
