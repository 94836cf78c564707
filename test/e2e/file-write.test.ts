// End to end against dist/toolgate: file_write and file_edit through the whole pipeline —
// the write grant (and the folders it must cover), approval, refusals and their exit codes.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

const digestOf = (body: string) => `sha256:${new Bun.CryptoHasher("sha256").update(body).digest("hex")}`;
const WRITE = ["--allow-write", "--approve", "file_write"];
const EDIT = ["--allow-read", "--allow-write", "--approve", "file_read,file_edit"];

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

describe("file_write through dist/toolgate", () => {
  test("creates a file and its folders: exit 0, digest, bytes, created; journaled as irreversible", async () => {
    await using ws = tempDir();
    const r = await run(
      ["call", "file_write", JSON.stringify({ path: "notes/today.md", content: "# Today\n" }), ...WRITE],
      { cwd: ws.path },
    );
    expect(r.code).toBe(0);
    expect(json(r)).toEqual({
      status: "success",
      tool: "file_write",
      payload: { path: "notes/today.md", digest: digestOf("# Today\n"), bytes: 8, created: true },
    });
    expect(readFileSync(join(ws.path, "notes/today.md"), "utf8")).toBe("# Today\n");
    expect((await journal(ws.path)).map((x) => [x.tool, x.status, x.effect])).toEqual([
      ["file_write", "success", "irreversible"],
    ]);
  });

  test("--arg form with overwrite=true replaces a file", async () => {
    await using ws = tempDir();
    writeFileSync(join(ws.path, "a.txt"), "old\n");
    const r = await run(
      ["call", "file_write", "--arg", "path=a.txt", "--arg", "content=new", "--arg", "overwrite=true", ...WRITE],
      { cwd: ws.path },
    );
    expect(r.code).toBe(0);
    expect(json(r).payload).toEqual({ path: "a.txt", digest: digestOf("new"), bytes: 3, created: false });
  });

  test("exit 4 without --allow-write, naming the flag; nothing is written", async () => {
    await using ws = tempDir();
    const r = await run(["call", "file_write", '{"path":"a.txt","content":"x"}', "--approve", "file_write"], {
      cwd: ws.path,
    });
    expect(r.code).toBe(4);
    expect(json(r)).toMatchObject({
      status: "failed",
      error_code: "permission.denied",
      details: { flag: "--allow-write=a.txt" },
    });
    expect(json(r).message).toContain("run again with --allow-write=a.txt");
    expect(existsSync(join(ws.path, "a.txt"))).toBe(false);
  });

  test("exit 4 when the grant covers the file but not a missing folder: that folder is named and not created", async () => {
    await using ws = tempDir();
    const file = join(ws.path, "new/dir/f.txt");
    const r = await run(
      [
        "call",
        "file_write",
        '{"path":"new/dir/f.txt","content":"x"}',
        `--allow-write=${file}`,
        "--approve",
        "file_write",
      ],
      { cwd: ws.path },
    );
    expect(r.code).toBe(4);
    expect(json(r).message).toContain("run again with --allow-write=new;");
    expect(existsSync(join(ws.path, "new"))).toBe(false);
    const granted = await run(
      [
        "call",
        "file_write",
        '{"path":"new/dir/f.txt","content":"x"}',
        `--allow-write=${join(ws.path, "new")}`,
        "--approve",
        "file_write",
      ],
      { cwd: ws.path },
    );
    expect(granted.code).toBe(0);
  });

  test("exit 4 without approval: approval.required", async () => {
    await using ws = tempDir();
    const r = await run(["call", "file_write", '{"path":"a.txt","content":"x"}', "--allow-write"], { cwd: ws.path });
    expect([r.code, json(r).error_code]).toEqual([4, "approval.required"]);
    expect(existsSync(join(ws.path, "a.txt"))).toBe(false);
  });

  test("exit 1: replacing without overwrite is file.exists, saying how to consent", async () => {
    await using ws = tempDir();
    writeFileSync(join(ws.path, "a.txt"), "keep\n");
    const r = await run(["call", "file_write", '{"path":"a.txt","content":"x"}', ...WRITE], { cwd: ws.path });
    expect(r.code).toBe(1);
    expect(json(r)).toMatchObject({ status: "failed", tool: "file_write", error_code: "file.exists" });
    expect(json(r).message).toContain("overwrite: true");
    expect(readFileSync(join(ws.path, "a.txt"), "utf8")).toBe("keep\n");
  });

  test.each([
    ["a directory", "d", "file.not_a_file"],
    ["a path leaving the workspace, even with -A", "../escape.txt", "path.outside_workspace"],
    ["the state folder, even with -A", ".toolgate/x.txt", "path.protected"],
    ["a .git folder, even with -A", ".git/hooks/pre-commit", "path.protected"],
  ])("exit 1: %s", async (_what, path, code) => {
    await using top = tempDir();
    const ws = join(top.path, "ws");
    mkdirSync(join(ws, "d"), { recursive: true });
    const r = await run(
      ["call", "file_write", JSON.stringify({ path, content: "x", overwrite: true }), "-A", "--approve", "all"],
      { cwd: ws },
    );
    expect([r.code, json(r).error_code]).toEqual([1, code]);
    expect(existsSync(join(top.path, "escape.txt"))).toBe(false);
    if (path !== "d") expect(existsSync(join(ws, path))).toBe(false);
  });
});

describe("file_edit through dist/toolgate", () => {
  test("file_read's digest → file_edit: exit 0, diff and new digest, which file_read then reports", async () => {
    await using ws = tempDir();
    writeFileSync(join(ws.path, "a.txt"), "one\r\ntwo\r\n");
    const read = await run(["call", "file_read", '{"path":"a.txt"}', ...EDIT], { cwd: ws.path });
    const args = { path: "a.txt", digest: json(read).payload.digest, old_string: "two", new_string: "2\nthree" };
    const r = await run(["call", "file_edit", JSON.stringify(args), ...EDIT], { cwd: ws.path });
    expect(r.code).toBe(0);
    expect(json(r)).toEqual({
      status: "success",
      tool: "file_edit",
      payload: {
        path: "a.txt",
        digest: digestOf("one\r\n2\r\nthree\r\n"),
        replacements: 1,
        diff: "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,3 @@\n one\r\n-two\r\n+2\r\n+three\r\n",
        diffTruncated: false,
      },
    });
    expect(readFileSync(join(ws.path, "a.txt"), "utf8")).toBe("one\r\n2\r\nthree\r\n");
    const again = await run(["call", "file_read", '{"path":"a.txt"}', ...EDIT], { cwd: ws.path });
    expect(json(again).payload.digest).toBe(json(r).payload.digest);
    expect((await journal(ws.path)).map((x) => [x.tool, x.status, x.effect])).toEqual([
      ["file_read", "success", "read"],
      ["file_edit", "success", "reversible"],
      ["file_read", "success", "read"],
    ]);
  });

  test("exit 4 with only --allow-read: names --allow-write for the file; the file is unchanged", async () => {
    await using ws = tempDir();
    writeFileSync(join(ws.path, "a.txt"), "x\n");
    const args = { path: "a.txt", digest: digestOf("x\n"), old_string: "x", new_string: "y" };
    const r = await run(["call", "file_edit", JSON.stringify(args), "--allow-read", "--approve", "file_edit"], {
      cwd: ws.path,
    });
    expect(r.code).toBe(4);
    expect(json(r)).toMatchObject({ error_code: "permission.denied", details: { flag: "--allow-write=a.txt" } });
    expect(readFileSync(join(ws.path, "a.txt"), "utf8")).toBe("x\n");
  });

  test("exit 1: a stale digest (someone wrote after the read) is file.stale; the other write survives", async () => {
    await using ws = tempDir();
    writeFileSync(join(ws.path, "a.txt"), "v1\n");
    const read = await run(["call", "file_read", '{"path":"a.txt"}', ...EDIT], { cwd: ws.path });
    writeFileSync(join(ws.path, "a.txt"), "v2\n");
    const args = { path: "a.txt", digest: json(read).payload.digest, old_string: "v1", new_string: "mine" };
    const r = await run(["call", "file_edit", JSON.stringify(args), ...EDIT], { cwd: ws.path });
    expect([r.code, json(r).error_code]).toEqual([1, "file.stale"]);
    expect(json(r).message).toContain("file_read");
    expect(readFileSync(join(ws.path, "a.txt"), "utf8")).toBe("v2\n");
  });

  test.each([
    ["file.ambiguous", "a a\n", { old_string: "a", new_string: "b" }],
    ["file.no_match", "alpha\n", { old_string: "alpah", new_string: "b" }],
    ["file.no_change", "alpha\n", { old_string: "alpha", new_string: "alpha" }],
  ])("exit 1: %s", async (code, body, extra) => {
    await using ws = tempDir();
    writeFileSync(join(ws.path, "a.txt"), body);
    const mtime = statSync(join(ws.path, "a.txt")).mtimeMs;
    const r = await run(
      ["call", "file_edit", JSON.stringify({ path: "a.txt", digest: digestOf(body), ...extra }), ...EDIT],
      { cwd: ws.path },
    );
    expect([r.code, json(r).error_code]).toEqual([1, code]);
    expect([readFileSync(join(ws.path, "a.txt"), "utf8"), statSync(join(ws.path, "a.txt")).mtimeMs]).toEqual([
      body,
      mtime,
    ]);
  });

  test("exit 1: a malformed digest fails the schema (args.invalid naming digest)", async () => {
    await using ws = tempDir();
    writeFileSync(join(ws.path, "a.txt"), "x\n");
    const r = await run(
      ["call", "file_edit", '{"path":"a.txt","digest":"abc","old_string":"x","new_string":"y"}', ...EDIT],
      { cwd: ws.path },
    );
    expect([r.code, json(r).error_code]).toEqual([1, "args.invalid"]);
    expect(json(r).message).toContain("digest");
  });
});
