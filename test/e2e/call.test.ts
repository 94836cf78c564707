// End to end against dist/toolgate: the call forms, every exit code a built-in can reach,
// and the journal row each call leaves.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

const GRANT = ["--allow-read", "--approve", "file_read,file_find"];

async function journal(cwd: string) {
  const r = await run(["log", "--json"], { cwd });
  expect(r.code).toBe(0);
  return r.stdout.trim() === ""
    ? []
    : r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
}

describe("call forms", () => {
  test("JSON argument: numbered lines, digest, exit 0, one journal row", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "a.txt"), "one\ntwo\nthree\n");
    const r = await run(["call", "file_read", '{"path":"a.txt","offset":2}', ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(0);
    const digest = `sha256:${new Bun.CryptoHasher("sha256").update("one\ntwo\nthree\n").digest("hex")}`;
    expect(json(r)).toEqual({
      status: "success",
      tool: "file_read",
      payload: {
        path: "a.txt",
        digest,
        totalLines: 3,
        offset: 2,
        lineCount: 2,
        content: "2\ttwo\n3\tthree",
        clippedLines: 0,
        truncated: false,
      },
    });
    const rows = await journal(dir.path);
    expect(rows.map((x) => [x.event, x.tool, x.status, x.error_code, x.origin, x.effect])).toEqual([
      ["tool_finished", "file_read", "success", null, "builtin", "read"],
    ]);
    expect(rows[0].args_preview).toContain("a.txt");
    expect(rows[0].result_bytes).toBe(Buffer.byteLength(r.stdout.trimEnd()));
  });

  test("- reads the JSON from stdin", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "a.txt"), "x\n");
    const r = await run(["call", "file_read", "-", ...GRANT], { cwd: dir.path, stdin: '{"path":"a.txt"}' });
    expect(r.code).toBe(0);
    expect(json(r).payload.content).toBe("1\tx");
  });

  test("--arg values parse as JSON when they can, else are strings", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "a.txt"), "1\n2\n3\n4\n");
    const r = await run(["call", "file_read", "--arg", "path=a.txt", "--arg", "limit=2", ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(0);
    expect(json(r).payload).toMatchObject({ lineCount: 2, truncated: true, nextCursor: 3 });
    const bad = await run(["call", "file_read", "--arg", "path=a.txt", "--arg", "limit=two", ...GRANT], {
      cwd: dir.path,
    });
    expect(bad.code).toBe(1);
    expect(json(bad).error_code).toBe("args.invalid");
    expect(json(bad).message).toContain("limit");
  });

  test("stdout carries exactly the result JSON; human text goes to stderr", async () => {
    await using dir = tempDir();
    const r = await run(["call", "file_read", '{"path":"nope.txt"}', ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    expect(json(r)).toMatchObject({ status: "failed", tool: "file_read", error_code: "file.missing" });
    expect(r.stderr).toContain("file.missing");
  });
});

describe("exit codes and refusals", () => {
  test("exit 2: unparsable argument JSON, unknown flag, unknown command", async () => {
    await using dir = tempDir();
    const bad = await run(["call", "file_read", "{path:"], { cwd: dir.path });
    expect([bad.code, bad.stdout]).toEqual([2, ""]);
    expect(bad.stderr).toContain("not valid JSON");
    const flag = await run(["call", "file_read", "{}", "--allow-reed"], { cwd: dir.path });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("unknown flag --allow-reed");
    // With no command at all, the unknown flag is named too (not only the usage printed).
    const bare = await run(["--verbsoe"], { cwd: dir.path });
    expect([bare.code, bare.stdout]).toEqual([2, ""]);
    expect(bare.stderr).toContain("unknown flag --verbsoe");
    const cmd = await run(["frobnicate"], { cwd: dir.path });
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toContain('unknown command "frobnicate"');
    expect(await journal(dir.path)).toEqual([]);
  });

  test("exit 1: arguments failing the schema name the path inside the arguments", async () => {
    await using dir = tempDir();
    const r = await run(["call", "file_read", '{"path":"a","offset":0,"extra":1}', ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(1);
    const env = json(r);
    expect(env.error_code).toBe("args.invalid");
    expect(env.message).toContain("offset");
    expect(env.message).toContain("extra");
    expect((await journal(dir.path)).map((x) => x.error_code)).toEqual(["args.invalid"]);
  });

  test("exit 1: unknown_tool, journaled, no near-miss correction", async () => {
    await using dir = tempDir();
    const r = await run(["call", "file_reed", "{}", ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(1);
    expect(json(r)).toMatchObject({ status: "failed", tool: "file_reed", error_code: "unknown_tool" });
    expect((await journal(dir.path)).map((x) => [x.tool, x.error_code, x.digest])).toEqual([
      ["file_reed", "unknown_tool", null],
    ]);
  });

  test("exit 4: a missing read grant names the exact flag; the refusal is journaled", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "a.txt"), "x\n");
    const r = await run(["call", "file_read", '{"path":"a.txt"}', "--approve", "file_read"], { cwd: dir.path });
    expect(r.code).toBe(4);
    expect(json(r).error_code).toBe("permission.denied");
    expect(json(r).message).toContain("run again with --allow-read=a.txt");
    expect((await journal(dir.path)).map((x) => x.error_code)).toEqual(["permission.denied"]);
  });

  test("exit 4: deny wins over allow", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "a.txt"), "x\n");
    const r = await run(["call", "file_read", '{"path":"a.txt"}', ...GRANT, `--deny-read=${dir.path}`], {
      cwd: dir.path,
    });
    expect(r.code).toBe(4);
    expect(json(r).message).toContain("deny wins");
  });

  test("exit 4: approval.required without --approve when nobody can be asked", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "a.txt"), "x\n");
    const r = await run(["call", "file_read", '{"path":"a.txt"}', "--allow-read"], { cwd: dir.path });
    expect(r.code).toBe(4);
    expect(json(r).error_code).toBe("approval.required");
    expect(json(r).message).toContain("--approve file_read");
    const all = await run(["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "all"], {
      cwd: dir.path,
    });
    expect(all.code).toBe(0);
  });

  test.each([
    ["a path outside the workspace", "../x", "path.outside_workspace"],
    ["an absolute path", "/etc/passwd", "path.outside_workspace"],
    ["a symlink leading out", "out/passwd", "path.outside_workspace"],
    ["a directory where a file is expected", "sub", "file.not_a_file"],
    ["a binary file", "bin.dat", "file.binary"],
    ["a file larger than the read bound", "big.txt", "file.too_large"],
  ])("exit 1: %s", async (_what, path, code) => {
    await using dir = tempDir();
    const ws = join(dir.path, "ws");
    mkdirSync(join(ws, "sub"), { recursive: true });
    symlinkSync("/etc", join(ws, "out"));
    writeFileSync(join(ws, "bin.dat"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]));
    writeFileSync(join(ws, "big.txt"), Buffer.alloc(8 * 1024 * 1024 + 1, 0x61));
    const r = await run(["call", "file_read", JSON.stringify({ path }), "-A", "--approve", "all"], { cwd: ws });
    expect(r.code).toBe(1);
    expect(json(r).error_code).toBe(code);
    expect(json(r).message.length).toBeGreaterThan(10);
  });

  test("a private key in a file is rejected whole at the boundary; the journal names the rule, never the value", async () => {
    await using dir = tempDir();
    writeFileSync(
      join(dir.path, "id"),
      "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
    );
    const r = await run(["call", "file_read", '{"path":"id"}', ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(1);
    expect(json(r)).toEqual({ status: "failed", error_code: "sensitive_output_rejected" });
    const [row] = await journal(dir.path);
    expect(row.error_code).toBe("sensitive_output_rejected");
    expect(JSON.parse(row.detail)).toEqual({ rule: "pem", where: "$.content" });
    expect(JSON.stringify(row)).not.toContain("b3BlbnNzaC1rZXktdjEAAAA");
  });
});

describe("no terminal", () => {
  test("without CI=true or --no-prompt, a process with no controlling terminal is still non-interactive", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "a.txt"), "x\n");
    // setsid: a new session has no controlling terminal, whatever the test runner has
    const proc = Bun.spawn(["setsid", "-w", BIN, "call", "file_read", '{"path":"a.txt"}', "--allow-read"], {
      cwd: dir.path,
      env: { PATH: "/usr/bin:/bin", HOME: dir.path },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(4);
    expect(JSON.parse(out).error_code).toBe("approval.required");
  });
});
