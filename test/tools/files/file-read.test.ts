import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import fileRead, {
  ANSWER_BOUND_CHARS,
  LINE_BOUND_CHARS,
  READ_BOUND_BYTES,
  readFile,
} from "../../../src/tools/files/file-read.ts";
import { tempDir, toolContext } from "../../helpers.ts";
import type { Code } from "../../../src/result/codes.ts";

const put = (root: string, rel: string, body: string | Uint8Array): void => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), body);
};
const digestOf = (body: string | Uint8Array) => `sha256:${createHash("sha256").update(body).digest("hex")}`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const lines = (n: number, f: (i: number) => string = (i) => `line ${i}`) =>
  Array.from({ length: n }, (_, i) => f(i + 1));
const refusal = (code: Code) => ({ ok: false as const, refusal: { code, message: expect.any(String) } });
/** UTF-8 bytes of a string once JSON-serialized, without the quotes: what the output boundary measures. */
const jsonBytes = (s: string) => Buffer.byteLength(JSON.stringify(s)) - 2;
/** The line numbers an answer's content shows, in order. */
const numbersIn = (content: string) =>
  content === "" ? [] : content.split("\n").map((l) => Number(l.slice(0, l.indexOf("\t"))));

describe("numbering, offset and limit", () => {
  const body = `${lines(12).join("\n")}\n`;

  test.each([
    // offset, limit, content, nextCursor (absent: not truncated)
    [1, 2000, lines(12, (i) => `${String(i).padStart(2)}\tline ${i}`).join("\n"), undefined],
    [1, 3, "1\tline 1\n2\tline 2\n3\tline 3", 4],
    [9, 2, " 9\tline 9\n10\tline 10", 11],
    [10, 5, "10\tline 10\n11\tline 11\n12\tline 12", undefined],
    [12, 1, "12\tline 12", undefined],
    [13, 5, "", undefined],
    [400, 5, "", undefined],
  ])("offset %d limit %d", async (offset, limit, content, nextCursor) => {
    await using ws = tempDir();
    put(ws.path, "a.txt", body);
    const lineCount = content === "" ? 0 : content.split("\n").length;
    expect(readFile(ws.path, "a.txt", offset, limit)).toEqual({
      ok: true,
      value: {
        path: "a.txt",
        digest: digestOf(body),
        totalLines: 12,
        offset,
        lineCount,
        content,
        clippedLines: 0,
        truncated: nextCursor !== undefined,
        ...(nextCursor === undefined ? {} : { nextCursor }),
      },
    });
  });

  test("the number width is that of the highest line the answer may show", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", lines(1000).join("\n"));
    const r = readFile(ws.path, "a.txt", 998, 10) as any;
    expect(r.value.content).toBe(" 998\tline 998\n 999\tline 999\n1000\tline 1000");
  });

  test("the declaration defaults to offset 1 and a 2000-line limit", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", lines(2500).join("\n"));
    const r = (await fileRead.handler({ path: "a.txt" }, toolContext(ws.path))) as any;
    expect([r.value.offset, r.value.lineCount, r.value.truncated, r.value.nextCursor]).toEqual([1, 2000, true, 2001]);
  });
});

describe("line endings and edges", () => {
  test.each([
    ["empty file", "", 0, ""],
    ["no trailing newline", "a\nb", 2, "1\ta\n2\tb"],
    ["trailing newline", "a\nb\n", 2, "1\ta\n2\tb"],
    ["one empty line", "\n", 1, "1\t"],
    ["two empty lines", "\n\n", 2, "1\t\n2\t"],
    ["CRLF", "a\r\nb\r\n", 2, "1\ta\n2\tb"],
    ["CRLF without trailing newline", "a\r\nb", 2, "1\ta\n2\tb"],
    ["mixed LF and CRLF", "a\r\nb\nc\r\n", 3, "1\ta\n2\tb\n3\tc"],
    ["blank CRLF lines", "\r\n\r\nx", 3, "1\t\n2\t\n3\tx"],
    ["a lone CR stays inside its line", "a\rb\n", 1, "1\ta\rb"],
  ])("%s", async (_name, body, totalLines, content) => {
    await using ws = tempDir();
    put(ws.path, "f.txt", body);
    expect(readFile(ws.path, "f.txt", 1, 100)).toEqual({
      ok: true,
      value: {
        path: "f.txt",
        digest: digestOf(body),
        totalLines,
        offset: 1,
        lineCount: totalLines,
        content,
        clippedLines: 0,
        truncated: false,
      },
    });
  });
});

describe("bounds", () => {
  test("a long line is clipped, says so, and is counted in clippedLines", async () => {
    await using ws = tempDir();
    const long = "x".repeat(LINE_BOUND_CHARS + 500);
    const exact = "y".repeat(LINE_BOUND_CHARS);
    put(ws.path, "f.txt", `${long}\n${exact}\n${long}\n`);
    const r = readFile(ws.path, "f.txt", 1, 100) as any;
    const clipped = `${"x".repeat(LINE_BOUND_CHARS)}… [line clipped: ${LINE_BOUND_CHARS + 500} chars]`;
    expect(r.value.content).toBe(`1\t${clipped}\n2\t${exact}\n3\t${clipped}`);
    expect(r.value.clippedLines).toBe(2);
  });

  test("clipping never splits a surrogate pair", async () => {
    await using ws = tempDir();
    put(ws.path, "f.txt", `a${"😀".repeat(LINE_BOUND_CHARS)}`);
    const r = readFile(ws.path, "f.txt", 1, 1) as any;
    expect(r.value.clippedLines).toBe(1);
    expect(r.value.content.isWellFormed()).toBe(true);
    expect(r.value.content).toStartWith(`1\ta${"😀".repeat(LINE_BOUND_CHARS / 2 - 1)}… [line clipped:`);
  });

  test("a clipped line held back by the answer bound is counted on the page that shows it", async () => {
    await using ws = tempDir();
    // 19 unclipped lines of LINE_BOUND_CHARS fill the bound so far that the clipped 20th waits.
    put(
      ws.path,
      "f.txt",
      [...lines(19, () => "a".repeat(LINE_BOUND_CHARS)), "b".repeat(LINE_BOUND_CHARS + 1)].join("\n"),
    );
    const first = readFile(ws.path, "f.txt", 1, 100) as any;
    expect([first.value.lineCount, first.value.clippedLines, first.value.nextCursor]).toEqual([19, 0, 20]);
    const second = readFile(ws.path, "f.txt", 20, 100) as any;
    expect([second.value.lineCount, second.value.clippedLines, second.value.truncated]).toEqual([1, 1, false]);
  });

  test("the answer bound stops early with truncated and nextCursor", async () => {
    await using ws = tempDir();
    // 1000 lines of 99 chars; numbered with width 4: 104 chars, 105 bytes serialized (the tab is \t),
    // joined by "\n" (2 bytes serialized): n lines cost 107n - 2 bytes, so 373 fit in the bound.
    put(ws.path, "f.txt", lines(1000, () => "z".repeat(99)).join("\n"));
    const r = readFile(ws.path, "f.txt", 1, 2000) as any;
    const fit = Math.floor((ANSWER_BOUND_CHARS + 2) / 107);
    expect([r.value.lineCount, r.value.truncated, r.value.nextCursor]).toEqual([fit, true, fit + 1]);
    expect(jsonBytes(r.value.content)).toBeLessThanOrEqual(ANSWER_BOUND_CHARS);
  });

  // Characters that grow when serialized: the bound is what reaches the 64 KiB boundary.
  test.each([
    ["quotes", '"'],
    ["backslashes", "\\"],
    ["two-byte UTF-8", "é"],
    ["three-byte UTF-8", "中"],
    ["control characters", "\u0001"],
    ["astral characters", "😀"],
  ])("every page of %s stays under the 64 KiB output boundary", async (_name, ch) => {
    await using ws = tempDir();
    put(ws.path, "f.txt", lines(300, () => ch.repeat(LINE_BOUND_CHARS / ch.length)).join("\n"));
    let offset = 1;
    const seen: number[] = [];
    for (let page = 0; page < 300; page++) {
      const r = readFile(ws.path, "f.txt", offset, 10_000) as any;
      expect(Buffer.byteLength(JSON.stringify(r.value))).toBeLessThanOrEqual(65536);
      expect(jsonBytes(r.value.content)).toBeLessThanOrEqual(ANSWER_BOUND_CHARS);
      seen.push(...numbersIn(r.value.content));
      if (!r.value.truncated) break;
      offset = r.value.nextCursor;
    }
    expect(seen).toEqual(range(300));
  });

  test.each([
    ["by limit", 5000, (i: number) => `row ${i}`, 700],
    ["by the answer bound", 3000, (i: number) => `${i}:${"w".repeat(i % 1500)}`, 10_000],
  ])("paging with nextCursor %s reaches the end, each line exactly once", async (_name, total, make, limit) => {
    await using ws = tempDir();
    const body = `${lines(total, make).join("\n")}\n`;
    put(ws.path, "f.txt", body);
    const seen: number[] = [];
    let offset = 1;
    let pages = 0;
    for (;;) {
      const r = readFile(ws.path, "f.txt", offset, limit) as any;
      pages++;
      expect(r.value.digest).toBe(digestOf(body));
      expect(r.value.totalLines).toBe(total);
      seen.push(...numbersIn(r.value.content));
      if (!r.value.truncated) {
        expect(r.value.nextCursor).toBeUndefined();
        break;
      }
      expect(r.value.nextCursor).toBe(offset + r.value.lineCount);
      offset = r.value.nextCursor;
    }
    expect(pages).toBeGreaterThan(1);
    expect(seen).toEqual(range(total));
  });

  test("a file at the read bound is read; one byte more is refused file.too_large", async () => {
    await using ws = tempDir();
    put(ws.path, "at.txt", Buffer.alloc(READ_BOUND_BYTES, "a"));
    put(ws.path, "over.txt", Buffer.alloc(READ_BOUND_BYTES + 1, "a"));
    const at = readFile(ws.path, "at.txt", 1, 10) as any;
    expect([at.ok, at.value.totalLines, at.value.clippedLines]).toEqual([true, 1, 1]);
    expect(readFile(ws.path, "over.txt", 1, 10)).toEqual({
      ok: false,
      refusal: {
        code: "file.too_large",
        message: expect.any(String),
        details: { size: READ_BOUND_BYTES + 1, bound: READ_BOUND_BYTES },
      },
    });
  });
});

describe("digest", () => {
  test("is the sha256 of the whole file's bytes, whatever the offset and limit", async () => {
    await using ws = tempDir();
    const body = "é\r\nsecond\nthird";
    put(ws.path, "f.txt", body);
    const digests = [
      [1, 1],
      [2, 1],
      [3, 5],
      [9, 1],
    ].map(([o, l]) => (readFile(ws.path, "f.txt", o!, l!) as any).value.digest);
    expect(digests).toEqual(Array(4).fill(digestOf(Buffer.from(body, "utf8"))));
  });
});

describe("refusals", () => {
  test.each([
    ["a NUL at the start", Buffer.from([0, 65, 66])],
    ["a NUL past the first 8 KiB", Buffer.concat([Buffer.alloc(10_000, "a"), Buffer.from([0]), Buffer.from("tail\n")])],
    ["invalid UTF-8", Buffer.from([0x61, 0xff, 0xfe, 0x62])],
    ["a truncated multi-byte sequence at the end", Buffer.from([0x61, 0xe4, 0xb8])],
    ["an overlong encoding", Buffer.from([0xc0, 0xaf])],
  ])("binary: %s is refused file.binary", async (_name, body) => {
    await using ws = tempDir();
    put(ws.path, "b.bin", body);
    expect(readFile(ws.path, "b.bin", 1, 10)).toEqual(refusal("file.binary"));
  });

  test.each([
    ["a missing file", "nope.txt", "file.missing"],
    ["a file in a missing folder", "nodir/nope.txt", "file.missing"],
    ["a path through a file", "a.txt/x", "file.missing"],
    ["a directory", "sub", "file.not_a_file"],
    ["the workspace itself", ".", "file.not_a_file"],
  ] as [string, string, Code][])("%s: %s is refused %s", async (_name, path, code) => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "a\n");
    put(ws.path, "sub/b.txt", "b\n");
    expect(readFile(ws.path, path, 1, 10)).toEqual(refusal(code));
  });

  test("a named pipe is refused file.not_a_file without waiting for a writer", async () => {
    await using ws = tempDir();
    expect(Bun.spawnSync(["mkfifo", join(ws.path, "pipe")]).exitCode).toBe(0);
    expect(readFile(ws.path, "pipe", 1, 10)).toEqual(refusal("file.not_a_file"));
  });
});

describe("the workspace wall", () => {
  test.each([
    ["the parent", ".."],
    ["a file beside the workspace", "../outside/secret.txt"],
    ["climbing out through a subfolder", "sub/../../outside/secret.txt"],
    ["an absolute path outside", "/etc/hostname"],
    ["an absolute path to a file inside", "ABS_INSIDE"],
    ["a symlink to a file outside", "out-file"],
    ["a file through a directory symlink leading out", "out-dir/secret.txt"],
    ["link/.. where link points out", "out-dir/.."],
    ["link/../sibling where link points out", "out-dir/../outside/secret.txt"],
  ])("%s (%s) is refused path.outside_workspace", async (_name, path) => {
    await using top = tempDir();
    const ws = join(top.path, "ws");
    put(top.path, "outside/secret.txt", "secret\n");
    put(ws, "sub/a.txt", "a\n");
    symlinkSync(join(top.path, "outside/secret.txt"), join(ws, "out-file"));
    symlinkSync(join(top.path, "outside"), join(ws, "out-dir"));
    const p = path === "ABS_INSIDE" ? join(ws, "sub/a.txt") : path;
    expect(readFile(ws, p, 1, 10)).toEqual(refusal("path.outside_workspace"));
    expect(
      fileRead.needs(
        { path: p },
        { workspace: ws, scratch: join(ws, ".scratch"), stateDir: join(ws, ".toolgate"), skillDirs: [] },
      ),
    ).toEqual(refusal("path.outside_workspace"));
  });

  test.each([
    ["a file symlink", "alias.txt"],
    ["a relative directory symlink", "docs/real.txt"],
    ["a symlink to a symlink", "alias2.txt"],
    ["link/.. staying inside", "docs/../real/real.txt"],
  ])("%s inside the workspace is read and reported by its real path", async (_name, path) => {
    await using ws = tempDir();
    put(ws.path, "real/real.txt", "hello\n");
    symlinkSync("real/real.txt", join(ws.path, "alias.txt"));
    symlinkSync("alias.txt", join(ws.path, "alias2.txt"));
    symlinkSync("real", join(ws.path, "docs"));
    expect(readFile(ws.path, path, 1, 10)).toEqual({
      ok: true,
      value: {
        path: "real/real.txt",
        digest: digestOf("hello\n"),
        totalLines: 1,
        offset: 1,
        lineCount: 1,
        content: "1\thello",
        clippedLines: 0,
        truncated: false,
      },
    });
  });
});

describe("file_read: what was checked is what is read", () => {
  test("the checked path is read, not the name given again; a file swapped for a symlink after the check is path.changed", async () => {
    await using top = tempDir();
    const ws = join(top.path, "ws");
    put(top.path, "secret.txt", "outside\n");
    put(ws, "f", "inside\n");
    expect((readFile(ws, "f", 1, 10, join(ws, "f")) as any).value.content).toBe("1\tinside");
    rmSync(join(ws, "f"));
    symlinkSync(join(top.path, "secret.txt"), join(ws, "f"));
    expect(readFile(ws, "f", 1, 10, join(ws, "f"))).toEqual(refusal("path.changed"));
  });

  test("a folder above it swapped for a symlink is path.changed", async () => {
    await using top = tempDir();
    const ws = join(top.path, "ws");
    put(top.path, "out/f", "outside\n");
    mkdirSync(ws);
    symlinkSync(join(top.path, "out"), join(ws, "d"));
    expect(readFile(ws, "d/f", 1, 10, join(ws, "d", "f"))).toEqual(refusal("path.changed"));
  });

  test("a checked path outside the workspace (re-resolved elsewhere by the gate) is path.changed", async () => {
    await using top = tempDir();
    put(top.path, "out.txt", "outside\n");
    mkdirSync(join(top.path, "ws"));
    expect(readFile(join(top.path, "ws"), "f", 1, 10, join(top.path, "out.txt"))).toEqual(refusal("path.changed"));
  });
});
