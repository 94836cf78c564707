import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { atomicWrite, realIo } from "../../../src/tools/files/atomic-write.ts";
import fileEdit, { editFile, type EditArgs } from "../../../src/tools/files/file-edit.ts";
import { readFile } from "../../../src/tools/files/file-read.ts";
import { DIFF_BOUND_BYTES, unifiedDiff } from "../../../src/tools/files/unified-diff.ts";
import { ROOT, tempDir, toolContext } from "../../helpers.ts";

const put = (root: string, rel: string, body: string | Uint8Array): void => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), body);
};
const digestOf = (body: string | Uint8Array) => `sha256:${createHash("sha256").update(body).digest("hex")}`;
const refusal = (code: string) => ({
  ok: false as const,
  refusal: expect.objectContaining({ code, message: expect.any(String) }),
});
/** Edits `rel` citing the digest of what is on disk now (as a fresh file_read would). */
const edit = (ws: string, rel: string, args: Omit<EditArgs, "path" | "digest">) =>
  editFile(ws, { path: rel, digest: digestOf(readFileSync(join(ws, rel))), ...args });
const body = (ws: string, rel: string) => readFileSync(join(ws, rel), "utf8");

describe("file_edit: the happy path", () => {
  test("replaces the one occurrence, returns the new digest (what file_read reports) and a unified diff", async () => {
    await using ws = tempDir();
    put(ws.path, "src/a.txt", "one\ntwo\nthree\n");
    const read = readFile(ws.path, "src/a.txt", 1, 100) as any;
    const r = await editFile(ws.path, {
      path: "src/a.txt",
      digest: read.value.digest,
      old_string: "two",
      new_string: "TWO\n2",
    });
    expect(r).toEqual({
      ok: true,
      value: {
        path: "src/a.txt",
        digest: digestOf("one\nTWO\n2\nthree\n"),
        replacements: 1,
        diff: "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+TWO\n+2\n three\n",
        diffTruncated: false,
      },
    });
    expect(body(ws.path, "src/a.txt")).toBe("one\nTWO\n2\nthree\n");
    expect((readFile(ws.path, "src/a.txt", 1, 100) as any).value.digest).toBe((r as any).value.digest);
  });

  test("replace_all replaces every occurrence and counts them", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "x = 1\ny = x\nz = x + x\n");
    const r = (await edit(ws.path, "a.txt", { old_string: "x", new_string: "w", replace_all: true })) as any;
    expect(r.value.replacements).toBe(4);
    expect(body(ws.path, "a.txt")).toBe("w = 1\ny = w\nz = w + w\n");
  });

  test("replace_all with a single occurrence is fine; new_string may be empty (a deletion)", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "keep\ndrop me\nkeep\n");
    const r = (await edit(ws.path, "a.txt", { old_string: "drop me\n", new_string: "", replace_all: true })) as any;
    expect([r.value.replacements, body(ws.path, "a.txt")]).toEqual([1, "keep\nkeep\n"]);
  });

  test("replacement text is literal: $& and $1 are not patterns", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "price\n");
    await edit(ws.path, "a.txt", { old_string: "price", new_string: "$& $1 $$" });
    expect(body(ws.path, "a.txt")).toBe("$& $1 $$\n");
  });

  test("the declaration: reversible, approval required, needs read and write of the real path", async () => {
    await using ws = tempDir();
    put(ws.path, "real/a.txt", "x");
    symlinkSync("real", join(ws.path, "link"));
    expect([fileEdit.name, fileEdit.effect, fileEdit.approval]).toEqual(["file_edit", "reversible", "required"]);
    const args = { path: "link/a.txt", digest: digestOf("x"), old_string: "x", new_string: "y" };
    const abs = join(ws.path, "real/a.txt");
    expect(fileEdit.needs(args, { workspace: ws.path, scratch: ws.path, stateDir: ws.path, skillDirs: [] })).toEqual({
      ok: true,
      value: [
        { kind: "read", value: abs },
        { kind: "write", value: abs },
      ],
    });
    expect(
      fileEdit.needs(
        { ...args, path: "../x" },
        { workspace: ws.path, scratch: ws.path, stateDir: ws.path, skillDirs: [] },
      ),
    ).toEqual(refusal("path.outside_workspace"));
  });

  test("the handler works from the tool context's workspace", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "a\n");
    const ctx = toolContext(ws.path);
    const r = (await fileEdit.handler(
      { path: "a.txt", digest: digestOf("a\n"), old_string: "a", new_string: "b" },
      ctx,
    )) as any;
    expect([r.ok, body(ws.path, "a.txt")]).toEqual([true, "b\n"]);
  });
});

describe("file_edit: refusals", () => {
  test.each([
    [
      "file.stale: the digest is not the file's",
      "a.txt",
      { digest: digestOf("something else"), old_string: "alpha", new_string: "A" },
      "file.stale",
    ],
    ["file.missing", "nope.txt", { old_string: "alpha", new_string: "A" }, "file.missing"],
    ["file.missing under a file", "a.txt/x", { old_string: "alpha", new_string: "A" }, "file.missing"],
    ["file.binary: a NUL byte", "bin.dat", { old_string: "ELF", new_string: "FLE" }, "file.binary"],
    ["file.binary: invalid UTF-8", "latin1.txt", { old_string: "caf", new_string: "CAF" }, "file.binary"],
    [
      "file.no_change: old_string equals new_string",
      "a.txt",
      { old_string: "alpha", new_string: "alpha" },
      "file.no_change",
    ],
    [
      "file.no_change: equal once CRLF is applied",
      "crlf.txt",
      { old_string: "a\nb", new_string: "a\r\nb" },
      "file.no_change",
    ],
    ["file.not_a_file: a directory", "sub", { old_string: "a", new_string: "b" }, "file.not_a_file"],
    ["a path outside the workspace", "../outside.txt", { old_string: "a", new_string: "b" }, "path.outside_workspace"],
    ["an absolute path", "/etc/hostname", { old_string: "a", new_string: "b" }, "path.outside_workspace"],
    ["a symlink leading out", "out/secret.txt", { old_string: "s", new_string: "S" }, "path.outside_workspace"],
  ])("%s", async (_what, path, extra, code) => {
    await using top = tempDir();
    const ws = join(top.path, "ws");
    put(ws, "a.txt", "alpha\nbeta\n");
    put(ws, "bin.dat", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1]));
    put(ws, "latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    put(ws, "crlf.txt", "a\r\nb\r\n");
    mkdirSync(join(ws, "sub"));
    put(top.path, "outside.txt", "a\n");
    put(top.path, "secret/secret.txt", "s\n");
    symlinkSync(join(top.path, "secret"), join(ws, "out"));
    const onDisk = (p: string) => {
      try {
        return readFileSync(join(ws, p));
      } catch {
        return Buffer.alloc(0);
      }
    };
    const digest = "digest" in extra ? extra.digest : digestOf(onDisk(path));
    const before = readdirSync(ws).sort();
    expect(await editFile(ws, { path, digest, ...extra } as EditArgs)).toEqual(refusal(code));
    expect(body(ws, "a.txt")).toBe("alpha\nbeta\n");
    expect(body(top.path, "outside.txt")).toBe("a\n");
    expect(body(top.path, "secret/secret.txt")).toBe("s\n");
    expect(readdirSync(ws).sort()).toEqual(before);
  });

  test("file.stale tells the caller to read again and does not hand out the current digest", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "now\n");
    const r = (await editFile(ws.path, {
      path: "a.txt",
      digest: digestOf("then\n"),
      old_string: "now",
      new_string: "later",
    })) as any;
    expect(r.refusal.code).toBe("file.stale");
    expect(r.refusal.message).toContain("read it again with file_read");
    expect(JSON.stringify(r)).not.toContain(digestOf("now\n").slice(7));
  });

  test("file.ambiguous gives the count and the lines; nothing is written", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "foo\nbar\nfoo\nbaz foo\n");
    const r = (await edit(ws.path, "a.txt", { old_string: "foo", new_string: "FOO" })) as any;
    expect(r.refusal).toEqual({
      code: "file.ambiguous",
      message: expect.stringContaining("occurs 3 times"),
      details: { count: 3, lines: [1, 3, 4] },
    });
    expect(r.refusal.message).toContain("replace_all: true");
    expect(body(ws.path, "a.txt")).toBe("foo\nbar\nfoo\nbaz foo\n");
  });

  test("file.no_match shows the nearest candidate line with its number", async () => {
    await using ws = tempDir();
    put(ws.path, "a.ts", "import x from 'y';\n\nfunction greet(name) {\n  return `hi ${name}`;\n}\n");
    const r = (await edit(ws.path, "a.ts", {
      old_string: "function greet(nme) {\n  return 1;\n}",
      new_string: "z",
    })) as any;
    expect(r.refusal.code).toBe("file.no_match");
    expect(r.refusal.details.candidate).toEqual({
      line: 3,
      text: "function greet(name) {",
      similarity: expect.any(Number),
    });
    expect(r.refusal.details.candidate.similarity).toBeGreaterThanOrEqual(0.5);
    expect(r.refusal.message).toContain("line 3 (similarity");
    expect(r.refusal.message).toContain('"function greet(name) {"');
  });

  test("file.no_match ignores indentation when looking for the candidate", async () => {
    await using ws = tempDir();
    put(ws.path, "a.py", "def f():\n    if x:\n        return y\n");
    const r = (await edit(ws.path, "a.py", { old_string: "if x:\n  return y", new_string: "pass" })) as any;
    // The first line matches line 2 (whitespace aside); the next one differs in its indentation.
    expect(r.refusal.details).toEqual({ candidate: { line: 2, text: "    if x:", similarity: 1 }, differsAt: 3 });
    expect(r.refusal.message).toContain('differs at line 3, which is "        return y"');
  });

  test("file.no_match points at the first differing line when the first line matches exactly", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "alpha\nbeta\ngamma\ndelta\n");
    const r = (await edit(ws.path, "a.txt", { old_string: "beta\ngamma\nepsilon", new_string: "x" })) as any;
    expect(r.refusal.details).toEqual({ candidate: { line: 2, text: "beta", similarity: 1 }, differsAt: 4 });
    expect(r.refusal.message).toContain('differs at line 4, which is "delta"');
  });

  test("file.no_match says so when no line resembles old_string", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "alpha\nbeta\n");
    const r = (await edit(ws.path, "a.txt", { old_string: "QQQQQQQQ", new_string: "x" })) as any;
    expect(r.refusal.details).toEqual({ candidate: null });
    expect(r.refusal.message).toContain("no line resembles");
  });
});

describe("file_edit: protected folders", () => {
  test.each([".git/config", "vendor/lib/.git/hooks/pre-commit", ".toolgate/notes.txt", ".toolgate/sub/x"])(
    "%s is path.protected, whatever the grants",
    async (path) => {
      await using ws = tempDir();
      put(ws.path, path, "x\n");
      const r = await editFile(
        ws.path,
        { path, digest: digestOf("x\n"), old_string: "x", new_string: "y" },
        { stateDir: join(ws.path, ".toolgate") },
      );
      expect(r).toEqual(refusal("path.protected"));
      expect(body(ws.path, path)).toBe("x\n");
    },
  );

  test("a file merely named like them is not protected", async () => {
    await using ws = tempDir();
    put(ws.path, ".gitignore", "x\n");
    put(ws.path, ".toolgate-notes", "x\n");
    const scope = { stateDir: join(ws.path, ".toolgate") };
    expect(
      (
        (await editFile(
          ws.path,
          { path: ".gitignore", digest: digestOf("x\n"), old_string: "x", new_string: "y" },
          scope,
        )) as any
      ).ok,
    ).toBe(true);
    expect(
      (
        (await editFile(
          ws.path,
          { path: ".toolgate-notes", digest: digestOf("x\n"), old_string: "x", new_string: "y" },
          scope,
        )) as any
      ).ok,
    ).toBe(true);
  });
});

describe("file_edit: a concurrent writer", () => {
  test("a write between file_read and file_edit makes the edit file.stale; the other write survives", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "v1\n");
    const { digest } = (readFile(ws.path, "a.txt", 1, 10) as any).value;
    writeFileSync(join(ws.path, "a.txt"), "v2 by someone else\n");
    const r = (await editFile(ws.path, { path: "a.txt", digest, old_string: "v1", new_string: "mine" })) as any;
    expect(r.refusal.code).toBe("file.stale");
    expect(body(ws.path, "a.txt")).toBe("v2 by someone else\n");
  });

  test("a write after the digest check but before the rename is caught too (file.stale), the temp file removed", async () => {
    await using ws = tempDir();
    const target = join(ws.path, "a.txt");
    put(ws.path, "a.txt", "v1\n");
    const before = lstatSync(target, { bigint: true });
    writeFileSync(target, "v2 by someone else, same inode\n");
    const r = atomicWrite(target, "a.txt", Buffer.from("mine\n"), { publish: "replace", unchangedSince: before });
    expect(r).toEqual(refusal("file.stale"));
    expect([body(ws.path, "a.txt"), readdirSync(ws.path)]).toEqual(["v2 by someone else, same inode\n", ["a.txt"]]);
  });
});

describe("file_edit: a crash between write and rename", () => {
  test("a failing rename leaves the original intact and no temporary file behind", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "original\n");
    const io = {
      ...realIo,
      rename: () => {
        throw Object.assign(new Error("boom"), { code: "EIO" });
      },
    };
    const r = await editFile(
      ws.path,
      { path: "a.txt", digest: digestOf("original\n"), old_string: "original", new_string: "changed" },
      { io },
    );
    expect(r).toEqual(refusal("file.unwritable"));
    expect([body(ws.path, "a.txt"), digestOf(readFileSync(join(ws.path, "a.txt"))), readdirSync(ws.path)]).toEqual([
      "original\n",
      digestOf("original\n"),
      ["a.txt"],
    ]);
  });

  test("a process killed right before the rename leaves the original (content and digest) at the target", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "original\n");
    chmodSync(join(ws.path, "a.txt"), 0o640);
    // The child edits with a rename step that SIGKILLs its own process: nothing runs after the fsync.
    const script = `
      import { editFile } from ${JSON.stringify(join(ROOT, "src/tools/files/file-edit.ts"))};
      import { realIo } from ${JSON.stringify(join(ROOT, "src/tools/files/atomic-write.ts"))};
      const io = { ...realIo, rename: () => process.kill(process.pid, "SIGKILL") };
      await editFile(${JSON.stringify(ws.path)}, { path: "a.txt", digest: ${JSON.stringify(digestOf("original\n"))}, old_string: "original", new_string: "changed" }, { io });
      console.log("survived");`;
    const child = Bun.spawn([process.execPath, "-e", script], {
      cwd: ws.path,
      env: { PATH: "/usr/bin:/bin" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect([child.signalCode, code, out]).toEqual(["SIGKILL", 137, ""]);
    expect(readFileSync(join(ws.path, "a.txt"), "utf8")).toBe("original\n");
    expect(digestOf(readFileSync(join(ws.path, "a.txt")))).toBe(digestOf("original\n"));
    expect(statSync(join(ws.path, "a.txt")).mode & 0o777).toBe(0o640);
    // What the crash leaves is a hidden temporary file holding the complete new text, never the target.
    const left = readdirSync(ws.path).filter((n) => n !== "a.txt");
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^\.a\.txt\.[0-9a-f]{16}\.toolgate-tmp$/);
    expect(readFileSync(join(ws.path, left[0]!), "utf8")).toBe("changed\n");
    // And the next edit, citing the original digest, still works.
    expect(((await edit(ws.path, "a.txt", { old_string: "original", new_string: "after" })) as any).ok).toBe(true);
  });
});

describe("file_edit: what is kept", () => {
  test.each([
    ["CRLF file, LF strings", "a\r\nb\r\nc\r\n", "b\nc", "B\nC\nD", "a\r\nB\r\nC\r\nD\r\n"],
    ["CRLF file, CRLF strings", "a\r\nb\r\nc\r\n", "b\r\nc", "B\r\nC", "a\r\nB\r\nC\r\n"],
    ["CRLF file, one-line old_string, multi-line new_string", "a\r\nb\r\n", "a", "x\ny", "x\r\ny\r\nb\r\n"],
    ["CRLF file without a final newline", "a\r\nb", "b", "b\nc", "a\r\nb\r\nc"],
    ["LF file: strings as written", "a\nb\n", "a\nb", "A\nB", "A\nB\n"],
    ["mixed file: literal match first", "a\r\nb\nc\n", "b\nc", "B\nC", "a\r\nB\nC\n"],
    ["mixed file: CRLF when only that matches", "a\r\nb\r\nc\n", "a\nb", "A\nB", "A\r\nB\r\nc\n"],
    ["a lone CR stays", "a\rb\r\n", "a\rb", "x\ry", "x\ry\r\n"],
    ["a UTF-8 BOM stays", "\uFEFFhello\n", "hello", "world", "\uFEFFworld\n"],
    ["non-ASCII text", "zażółć 😀\n", "😀", "gęślą", "zażółć gęślą\n"],
  ])("%s", async (_what, before, oldString, newString, after) => {
    await using ws = tempDir();
    put(ws.path, "f.txt", before);
    const r = (await edit(ws.path, "f.txt", { old_string: oldString, new_string: newString })) as any;
    expect(r.ok).toBe(true);
    expect(body(ws.path, "f.txt")).toBe(after);
    expect(r.value.digest).toBe(digestOf(after));
  });

  test("the diff of a CRLF file shows its lines as they are", async () => {
    await using ws = tempDir();
    put(ws.path, "w.txt", "a\r\nb\r\n");
    const r = (await edit(ws.path, "w.txt", { old_string: "b", new_string: "c" })) as any;
    expect(r.value.diff).toBe("--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n");
  });

  test.each([0o600, 0o640, 0o755, 0o444])("mode %s is kept whatever the umask", async (mode) => {
    await using ws = tempDir();
    put(ws.path, "m.sh", "echo hi\n");
    chmodSync(join(ws.path, "m.sh"), mode);
    const ino = statSync(join(ws.path, "m.sh")).ino;
    expect(((await edit(ws.path, "m.sh", { old_string: "hi", new_string: "ho" })) as any).ok).toBe(true);
    const st = statSync(join(ws.path, "m.sh"));
    expect([st.mode & 0o7777, st.isFile(), body(ws.path, "m.sh")]).toEqual([mode, true, "echo ho\n"]);
    expect(st.ino).not.toBe(ino); // replaced by rename, not rewritten in place
  });

  test("editing through a symlink inside the workspace changes the target and keeps the link", async () => {
    await using ws = tempDir();
    put(ws.path, "real.txt", "x\n");
    symlinkSync("real.txt", join(ws.path, "link.txt"));
    const r = (await edit(ws.path, "link.txt", { old_string: "x", new_string: "y" })) as any;
    expect(r.value.path).toBe("real.txt");
    expect([readlinkSync(join(ws.path, "link.txt")), body(ws.path, "real.txt")]).toEqual(["real.txt", "y\n"]);
  });

  test("no temporary file is left after a successful edit", async () => {
    await using ws = tempDir();
    put(ws.path, "d/a.txt", "1\n");
    await edit(ws.path, "d/a.txt", { old_string: "1", new_string: "2" });
    expect(readdirSync(join(ws.path, "d"))).toEqual(["a.txt"]);
  });

  test("a diff past the bound is clipped and says so; the edit itself is whole", async () => {
    await using ws = tempDir();
    const lines = Array.from({ length: 4000 }, (_, i) => `line ${i} tok`);
    put(ws.path, "big.txt", `${lines.join("\n")}\n`);
    const r = (await edit(ws.path, "big.txt", { old_string: "tok", new_string: "TOKEN", replace_all: true })) as any;
    expect([r.value.replacements, r.value.diffTruncated, r.value.diffTotalLines]).toEqual([4000, true, 2 + 1 + 8000]);
    expect(Buffer.byteLength(JSON.stringify(r.value.diff)) - 2).toBeLessThanOrEqual(DIFF_BOUND_BYTES);
    expect(Buffer.byteLength(JSON.stringify(r.value))).toBeLessThan(65_536);
    expect(body(ws.path, "big.txt")).toBe(`${lines.map((l) => l.replace("tok", "TOKEN")).join("\n")}\n`);
  });
});

describe("file_edit: the unified diff", () => {
  /** Applies `diff` with patch(1) to a copy of `before` and returns the result. */
  async function patched(before: string, diff: string): Promise<string> {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "f.txt"), before);
    const p = Bun.spawn(["patch", "-p1", "--binary", "--quiet", "--force", "-d", dir.path], {
      stdin: new Blob([diff]),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(p.stdout).text(),
      new Response(p.stderr).text(),
      p.exited,
    ]);
    expect({ code, out, err }).toEqual({ code: 0, out: "", err: "" });
    return readFileSync(join(dir.path, "f.txt"), "utf8");
  }
  /** GNU diff -u's hunks (its headers carry timestamps). */
  async function gnuHunks(before: string, after: string): Promise<string> {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "a"), before);
    writeFileSync(join(dir.path, "b"), after);
    const p = Bun.spawn(["diff", "-u", "a", "b"], { cwd: dir.path, stdout: "pipe" });
    return (await new Response(p.stdout).text()).split("\n").slice(2).join("\n");
  }
  const replaceAt = (text: string, needle: string, replacement: string, all: boolean) => {
    const at: number[] = [];
    for (
      let i = text.indexOf(needle);
      i !== -1 && (all || at.length === 0);
      i = text.indexOf(needle, i + needle.length)
    )
      at.push(i);
    let out = "";
    let last = 0;
    for (const i of at) {
      out += text.slice(last, i) + replacement;
      last = i + needle.length;
    }
    return {
      after: out + text.slice(last),
      edits: at.map((i) => ({ at: i, oldLength: needle.length, newLength: replacement.length })),
    };
  };
  const ten = Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join("\n");

  test.each([
    ["a middle line", `${ten}\n`, "l5", "L5"],
    ["the first line", `${ten}\n`, "l1\n", "L1\n"],
    ["the last line, without a final newline", ten, "l10", "L10"],
    ["adding the final newline", ten, "l10", "l10\n"],
    ["deleting two lines", `${ten}\n`, "l4\nl5\n", ""],
    ["inserting lines", `${ten}\n`, "l2\n", "l2\nnew a\nnew b\n"],
    ["joining two lines", `${ten}\n`, "l3\nl4", "l3 l4"],
    ["everything", "only\n", "only\n", ""],
    ["a CRLF line", "a\r\nb\r\nc\r\n", "b", "B"],
  ])("%s: the same hunks as GNU diff -u", async (_what, before, needle, replacement) => {
    const { after, edits } = replaceAt(before, needle, replacement, false);
    const view = unifiedDiff("f.txt", before, after, edits);
    expect(view.diff.split("\n").slice(0, 2)).toEqual(["--- a/f.txt", "+++ b/f.txt"]);
    expect(
      view.diff
        .split("\n")
        .slice(2)
        .join("\n")
        .replace(/@@ -(\d+),1 /g, "@@ -$1 ")
        .replace(/ \+(\d+),1 @@/g, " +$1 @@"),
    ).toBe(await gnuHunks(before, after));
    expect(await patched(before, view.diff)).toBe(after);
  });

  test("generated edits: every diff applies with patch(1) and gives the edited text", async () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    const words = ["alpha", "beta", "x", "", "gamma delta", "x x"];
    let applied = 0;
    for (let round = 0; round < 60; round++) {
      const eol = round % 4 === 0 ? "\r\n" : "\n";
      const lines = Array.from({ length: 1 + rand(30) }, () => words[rand(words.length)]!);
      const before = lines.join(eol) + (rand(2) ? eol : "");
      const needle = ["x", "beta", `${eol}x`, `a${eol}`, "gamma"][rand(5)]!;
      if (!before.includes(needle)) continue;
      const { after, edits } = replaceAt(before, needle, ["", "y", `y${eol}z`, eol, "x"][rand(5)]!, rand(2) === 1);
      if (after === before) continue;
      expect(await patched(before, unifiedDiff("f.txt", before, after, edits).diff)).toBe(after);
      applied++;
    }
    expect(applied).toBeGreaterThan(20);
  });
});

describe("file_edit: what was checked is what is edited", () => {
  test("read and write checked as two different real paths (the name moved between the checks) is path.changed", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "x\n");
    put(ws.path, "b.txt", "x\n");
    const checked = [join(ws.path, "a.txt"), join(ws.path, "b.txt")];
    expect(
      await editFile(
        ws.path,
        { path: "a.txt", digest: digestOf("x\n"), old_string: "x", new_string: "y" },
        { checked },
      ),
    ).toEqual(refusal("path.changed"));
    expect([body(ws.path, "a.txt"), body(ws.path, "b.txt")]).toEqual(["x\n", "x\n"]);
  });

  test("a folder swapped for a symlink after the check is path.changed; the outside file is untouched", async () => {
    await using top = tempDir();
    const ws = join(top.path, "ws");
    put(ws, "d/a.txt", "x\n");
    put(top.path, "out/a.txt", "x\n");
    const checked = [join(ws, "d", "a.txt"), join(ws, "d", "a.txt")];
    renameSync(join(ws, "d"), join(ws, "real"));
    symlinkSync(join(top.path, "out"), join(ws, "d"));
    expect(
      await editFile(ws, { path: "d/a.txt", digest: digestOf("x\n"), old_string: "x", new_string: "y" }, { checked }),
    ).toEqual(refusal("path.changed"));
    expect([readdirSync(join(top.path, "out")), body(top.path, "out/a.txt")]).toEqual([["a.txt"], "x\n"]);
  });
});
