import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { findFiles } from "../../../src/tools/files/file-find.ts";
import fileSearch, {
  ANSWER_BOUND_BYTES,
  LARGE_BYTES,
  LINE_CHARS,
  searchFiles,
  type SearchArgs,
} from "../../../src/tools/search/file-search.ts";
import { requiredNeedles } from "../../../src/tools/search/literal.ts";
import { CHUNK_FILES, Helper, runPool } from "../../../src/tools/search/pool.ts";
import { OPEN_FLAGS, Scanner, Status } from "../../../src/tools/search/scan.ts";
import { hostPlatform } from "../../../src/platform/host.ts";
import { walk } from "../../../src/tools/files/walk.ts";
import { tempDir, type TempDir } from "../../helpers.ts";
import type { Code } from "../../../src/result/codes.ts";

const put = (root: string, rel: string, body: string | Uint8Array): void => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), body);
};
const never = new AbortController().signal;
const search = (
  ws: string,
  args: SearchArgs,
  extra: { walkBudget?: number; readBudget?: number; signal?: AbortSignal } = {},
) => searchFiles({ workspace: ws, stateDir: join(ws, ".toolgate"), signal: never, ...extra }, args);
/** The payload of a successful search (fails the test otherwise). */
async function found(ws: string, args: SearchArgs, extra = {}): Promise<any> {
  const r = await search(ws, args, extra);
  if (!r.ok) throw new Error(`refused: ${r.refusal.code}: ${r.refusal.message}`);
  return r.value;
}
const where = (p: any) => p.matches.map((m: any) => `${m.path}:${m.line}`);
const refusal = (code: Code) => ({ ok: false as const, refusal: { code, message: expect.any(String) } });
const ZERO = {
  skippedBinary: 0,
  skippedLarge: 0,
  skippedUnreadable: 0,
  skippedSecretFiles: 0,
  clippedLines: 0,
  truncated: false,
  scanCapped: false,
};

describe("matches", () => {
  test("path, 1-based line and the line's text, sorted by path (code units) then line", async () => {
    await using ws = tempDir();
    put(ws.path, "b.txt", "x\nfoo 1\nfoo 2\n");
    put(ws.path, "a/z.txt", "foo\n");
    put(ws.path, "B.txt", "no\nfoo\n");
    put(ws.path, "a.txt", "bar\n");
    expect(await found(ws.path, { pattern: "fo+" })).toEqual({
      pattern: "fo+",
      path: ".",
      matches: [
        { path: "B.txt", line: 2, text: "foo" },
        { path: "a/z.txt", line: 1, text: "foo" },
        { path: "b.txt", line: 2, text: "foo 1" },
        { path: "b.txt", line: 3, text: "foo 2" },
      ],
      count: 4,
      filesSearched: 4,
      ...ZERO,
    });
  });

  test.each([
    // pattern, options, file body, expected line numbers
    ["a.c", {}, "abc\na.c\n", [1, 2]],
    ["a.c", { literal: true }, "abc\na.c\n", [2]],
    ["f(x)[0]{1}|y", { literal: true }, "f(x)[0]{1}|y\nfx0\n", [1]],
    ["HELLO", {}, "hello\nHELLO\n", [2]],
    ["HELLO", { ignoreCase: true }, "hello\nHeLLo\nhelo\n", [1, 2]],
    ["k", { ignoreCase: true }, "K\n\u212a\nx\n", [1, 2]], // Unicode case folding: the Kelvin sign
    ["\\p{Lu}\\p{Ll}+", {}, "élan\nÉlan\n", [2]],
    ["^$", {}, "a\n\nb\n\n", [2, 4]],
    ["b$", {}, "ab\r\nab \r\n", [1]], // a trailing \r is not part of the line
    ["^\\s*call", {}, "  call()\nrecall\n", [1]],
    ["a\\sb", {}, "a\nb\na b\n", [3]], // never across lines
    ["a[^x]b", {}, "a\nb\n", []],
    ["(?<=x)y", {}, "xy\nyx\n", [1]],
    ["foo(?!bar)", {}, "foobar\nfoobaz\n", [2]],
    ["colou?r", {}, "color\ncolour\ncolr\n", [1, 2]],
    ["cat|dog", {}, "a cat\na dog\na cow\n", [1, 2]],
    ["x*", {}, "a\n\nb", [1, 2, 3]],
    ["last", {}, "first\nlast", [2]], // no final newline
    ["^foo", {}, "\ufefffoo\nfoo\n", [1, 2]], // a UTF-8 byte order mark is not text
  ] as const)("%p %p", async (pattern, opts, body, lines) => {
    await using ws = tempDir();
    put(ws.path, "f.txt", body);
    expect(where(await found(ws.path, { pattern, ...opts }))).toEqual(lines.map((l) => `f.txt:${l}`));
  });

  test("a long line shows a window around its first match, marked and counted", async () => {
    await using ws = tempDir();
    const long = `${"a".repeat(5000)}NEEDLE${"b".repeat(5000)}`;
    put(ws.path, "min.js", `${long}\nshort NEEDLE\n${"c".repeat(LINE_CHARS)}NEEDLE\n`);
    const p = await found(ws.path, { pattern: "NEEDLE" });
    expect(p.clippedLines).toBe(2);
    const [first, second, third] = p.matches.map((m: any) => m.text);
    expect(first).toStartWith("…");
    expect(first).toEndWith("…");
    expect(first).toContain("NEEDLE");
    expect(first.length).toBe(LINE_CHARS + 2);
    expect(second).toBe("short NEEDLE");
    expect(third).toBe(`…${"c".repeat(LINE_CHARS - 6)}NEEDLE`);
  });

  test("a window never splits a surrogate pair", async () => {
    await using ws = tempDir();
    put(ws.path, "e.txt", `${"😀".repeat(400)}x${"😀".repeat(400)}\n`);
    const [m] = (await found(ws.path, { pattern: "x" })).matches;
    expect(m.text).toContain("x");
    expect(m.text).not.toMatch(/^…?[\udc00-\udfff]|[\ud800-\udbff]…?$/);
  });
});

describe("what is searched", () => {
  test("binary files (a NUL anywhere, or invalid UTF-8) and large files are skipped and counted", async () => {
    await using ws = tempDir();
    put(ws.path, "nul-early.bin", Buffer.from("\0hit\n"));
    put(ws.path, "nul-late.txt", Buffer.concat([Buffer.from(`hit\n${"x".repeat(20_000)}\n`), Buffer.from([0])]));
    put(ws.path, "latin1.txt", Buffer.from([0x68, 0x69, 0x74, 0x20, 0xe9, 0x0a]));
    put(ws.path, "big.txt", Buffer.alloc(LARGE_BYTES + 1, "hit\n"));
    put(ws.path, "ok.txt", "hit\n");
    expect(await found(ws.path, { pattern: "hit" })).toMatchObject({
      matches: [{ path: "ok.txt", line: 1, text: "hit" }],
      filesSearched: 1,
      skippedBinary: 3,
      skippedLarge: 1,
    });
  });

  test(".gitignore files are respected, nested and negated; .git and the state folder are skipped", async () => {
    await using ws = tempDir();
    put(ws.path, ".gitignore", "*.log\nout/\n!keep.log\n");
    put(ws.path, "a.log", "hit\n");
    put(ws.path, "keep.log", "hit\n");
    put(ws.path, "out/x.txt", "hit\n");
    put(ws.path, "sub/.gitignore", "local.txt\n");
    put(ws.path, "sub/local.txt", "hit\n");
    put(ws.path, "sub/kept.txt", "hit\n");
    put(ws.path, ".git/config", "hit\n");
    put(ws.path, ".toolgate/journal.txt", "hit\n");
    expect(where(await found(ws.path, { pattern: "hit" }))).toEqual(["keep.log:1", "sub/kept.txt:1"]);
  });

  test("symlinks are not followed, to files inside or outside the workspace", async () => {
    await using outside = tempDir();
    await using ws = tempDir();
    put(outside.path, "secret.txt", "hit\n");
    put(ws.path, "real.txt", "hit\n");
    symlinkSync(join(outside.path, "secret.txt"), join(ws.path, "out.txt"));
    symlinkSync("real.txt", join(ws.path, "alias.txt"));
    symlinkSync(outside.path, join(ws.path, "outdir"));
    expect(where(await found(ws.path, { pattern: "hit" }))).toEqual(["real.txt:1"]);
  });

  test("path narrows to a folder or names one file; results stay workspace-relative", async () => {
    await using ws = tempDir();
    put(ws.path, "src/a.ts", "hit\n");
    put(ws.path, "src/deep/b.ts", "hit\n");
    put(ws.path, "docs/c.md", "hit\n");
    put(ws.path, ".gitignore", "ignored.txt\n");
    put(ws.path, "ignored.txt", "hit\n");
    expect(where(await found(ws.path, { pattern: "hit", path: "src" }))).toEqual(["src/a.ts:1", "src/deep/b.ts:1"]);
    expect(where(await found(ws.path, { pattern: "hit", path: "./src/deep/" }))).toEqual(["src/deep/b.ts:1"]);
    expect(where(await found(ws.path, { pattern: "hit", path: "docs/c.md" }))).toEqual(["docs/c.md:1"]);
    expect(where(await found(ws.path, { pattern: "hit", path: "ignored.txt" }))).toEqual(["ignored.txt:1"]); // named, so searched (as rg does)
  });

  test.each([
    // glob, expected paths (relative to path "src")
    ["*.ts", ["src/a.ts"]],
    ["**/*.ts", ["src/a.ts", "src/deep/b.ts"]],
    ["deep", ["src/deep/b.ts", "src/deep/c.md"]],
    ["{*.md,deep/*.md}", ["src/deep/c.md", "src/x.md"]],
  ])("glob %p filters relative to path", async (glob, paths) => {
    await using ws = tempDir();
    for (const f of ["src/a.ts", "src/deep/b.ts", "src/deep/c.md", "src/x.md", "top.ts"]) put(ws.path, f, "hit\n");
    expect(where(await found(ws.path, { pattern: "hit", path: "src", glob }))).toEqual(paths.map((p) => `${p}:1`));
  });

  test.each([
    "*.ts",
    "**/*.ts",
    "deep",
    "deep/",
    "./deep/**",
    "{*.md,deep/*.md}",
    "d?ep/*",
    "[a-c].ts",
    "**",
    "nope",
    "**/b.*",
  ])("glob %p keeps exactly the files file_find lists for it", async (glob) => {
    await using ws = tempDir();
    for (const f of ["src/a.ts", "src/deep/b.ts", "src/deep/c.md", "src/x.md", "src/.hidden.ts", "top.ts"])
      put(ws.path, f, "hit\n");
    const listed = findFiles(ws.path, join(ws.path, ".toolgate"), glob, "src", undefined, 5000);
    if (!listed.ok) throw new Error(listed.refusal.message);
    const searched = (await found(ws.path, { pattern: "hit", path: "src", glob })).matches.map((m: any) => m.path);
    expect(searched).toEqual((listed.value as any).paths);
  });

  test("a path inside an ignored folder searches nothing and says so", async () => {
    await using ws = tempDir();
    put(ws.path, ".gitignore", "build/\n");
    put(ws.path, "build/x.txt", "hit\n");
    expect(await found(ws.path, { pattern: "hit", path: "build" })).toMatchObject({ matches: [], pathIgnored: true });
  });

  test("scanCapped when the walk budget runs out", async () => {
    await using ws = tempDir();
    for (let i = 0; i < 10; i++) put(ws.path, `f${i}.txt`, "hit\n");
    const p = await found(ws.path, { pattern: "hit" }, { walkBudget: 4 });
    expect(p.scanCapped).toBe(true);
    expect(p.count).toBe(4);
  });
});

describe("pages", () => {
  const tree = (root: string, files: number, hitsPerFile: number) => {
    for (let i = 0; i < files; i++)
      put(
        root,
        `d${i % 7}/f${String(i).padStart(4, "0")}.txt`,
        Array.from({ length: hitsPerFile * 2 }, (_, j) => (j % 2 ? `hit ${i}.${j}` : "miss")).join("\n"),
      );
  };
  async function everyPage(ws: string, args: SearchArgs, extra = {}) {
    const all: string[] = [];
    let pages = 0;
    let cursor: string | undefined;
    do {
      const p = await found(ws, { ...args, ...(cursor ? { cursor } : {}) }, extra);
      expect(p.truncated).toBe(p.nextCursor !== undefined);
      all.push(...where(p));
      cursor = p.nextCursor;
      pages++;
    } while (cursor);
    return { all, pages };
  }

  test("limit pages through every match once, in order, with a cursor", async () => {
    await using ws = tempDir();
    tree(ws.path, 30, 3);
    const whole = where(await found(ws.path, { pattern: "hit", limit: 1000 }));
    expect(whole).toHaveLength(90);
    const paged = await everyPage(ws.path, { pattern: "hit", limit: 7 });
    expect(paged.all).toEqual(whole);
    expect(paged.pages).toBe(13);
    const first = await found(ws.path, { pattern: "hit", limit: 7 });
    expect(first.nextCursor).toBe(`${first.matches[6].path}:${first.matches[6].line}`);
  });

  test("many files, spread over worker threads, page the same as one thread would", async () => {
    await using ws = tempDir();
    tree(ws.path, 8 * CHUNK_FILES + 5, 1);
    const paged = await everyPage(ws.path, { pattern: "hit \\d+", limit: 100 });
    const expected = Array.from(
      { length: 8 * CHUNK_FILES + 5 },
      (_, i) => `d${i % 7}/f${String(i).padStart(4, "0")}.txt:2`,
    ).sort();
    expect(paged.all).toEqual(expected);
  });

  test("the serialized answer stays within its bound, whatever the limit", async () => {
    await using ws = tempDir();
    put(ws.path, "wide.txt", Array.from({ length: 1000 }, (_, i) => `hit ${i} ${'\u00e9"'.repeat(140)}`).join("\n"));
    const p = await found(ws.path, { pattern: "hit", limit: 1000 });
    expect(p.truncated).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(p.matches))).toBeLessThanOrEqual(ANSWER_BOUND_BYTES + 2);
    expect(Buffer.byteLength(JSON.stringify(p))).toBeLessThan(64 * 1024);
  });

  test("past the read budget the answer is truncated with a cursor to the next unread file", async () => {
    await using ws = tempDir();
    for (const f of ["a", "b", "c"]) put(ws.path, `${f}.txt`, `hit\n${"x".repeat(1000)}\n`);
    const p = await found(ws.path, { pattern: "hit" }, { readBudget: 2500 });
    expect(where(p)).toEqual(["a.txt:1", "b.txt:1"]);
    expect(p).toMatchObject({ truncated: true, nextCursor: "c.txt:0" });
    expect(where(await found(ws.path, { pattern: "hit", cursor: p.nextCursor }, { readBudget: 2500 }))).toEqual([
      "c.txt:1",
    ]);
  });

  test("skipped files are counted on the page that passes them", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "hit\nhit\n");
    put(ws.path, "b.bin", "\0hit");
    put(ws.path, "c.txt", "hit\n");
    const one = await found(ws.path, { pattern: "hit", limit: 2 });
    expect(one).toMatchObject({ count: 2, skippedBinary: 0, truncated: true, nextCursor: "a.txt:2" });
    expect(await found(ws.path, { pattern: "hit", limit: 2, cursor: one.nextCursor })).toMatchObject({
      count: 1,
      skippedBinary: 1,
      truncated: false,
    });
  });
});

describe("refusals", () => {
  test.each([
    ["an invalid regular expression, with the engine's reason", { pattern: "(unclosed" }, "find.invalid"],
    ["an escape the u flag refuses", { pattern: "\\-" }, "find.invalid"],
    ["a glob leaving the folder", { pattern: "x", glob: "../*.ts" }, "find.invalid"],
    ["a cursor it never returned", { pattern: "x", cursor: "nonsense" }, "args.invalid"],
    ["a missing path", { pattern: "x", path: "nope" }, "file.missing"],
    ["a path outside the workspace", { pattern: "x", path: "../" }, "path.outside_workspace"],
    ["an absolute path", { pattern: "x", path: "/etc" }, "path.outside_workspace"],
  ] as const)("%s", async (_what, args, code) => {
    await using ws = tempDir();
    expect(await search(ws.path, args)).toEqual(refusal(code));
  });

  test("find.invalid carries the engine's reason", async () => {
    await using ws = tempDir();
    const r = await search(ws.path, { pattern: "a(" });
    expect(r.ok ? "" : r.refusal.message).toMatch(/invalid regular expression "a\(": .*\)/i);
  });

  test("needs: read on the real path of the searched folder; nothing outside", async () => {
    await using ws = tempDir();
    mkdirSync(join(ws.path, "src"));
    symlinkSync("src", join(ws.path, "link"));
    const ctx = {
      workspace: ws.path,
      scratch: join(ws.path, ".scratch"),
      stateDir: join(ws.path, ".toolgate"),
      skillDirs: [],
    };
    expect(fileSearch.needs({ pattern: "x" }, ctx)).toEqual({
      ok: true,
      value: [{ kind: "read", value: ws.path, recursive: true }],
    });
    expect(fileSearch.needs({ pattern: "x", path: "link" }, ctx)).toEqual({
      ok: true,
      value: [{ kind: "read", value: join(ws.path, "src"), recursive: true }],
    });
    expect(fileSearch.needs({ pattern: "x", path: "../.." }, ctx)).toEqual(refusal("path.outside_workspace"));
    expect([fileSearch.effect, fileSearch.approval]).toEqual(["read", "required"]);
  });

  test("an aborted search stops and answers nothing", async () => {
    await using ws = tempDir();
    for (let i = 0; i < 5 * CHUNK_FILES; i++) put(ws.path, `f${i}.txt`, "hit\n");
    const p = await found(ws.path, { pattern: "hit" }, { signal: AbortSignal.abort() });
    expect(p.count).toBe(0);
  });
});

describe("the literal prefilter", () => {
  test.each([
    ["foo", false, ["foo"]],
    ["foo.*barbaz", false, ["barbaz"]],
    ["colou?r", false, ["colo"]],
    ["ab{0}cd", false, ["cd"]],
    ["ab+cd", false, ["ab"]],
    ["(x)yz\\d", false, ["yz"]],
    ["\\x41\\u0042C", false, ["ABC"]],
    ["cat|dogs", false, ["cat", "dogs"]],
    ["cat|d", false, null], // one alternative has nothing long enough
    ["[abc]\\w+", false, null],
    ["needle", true, ["needle"]],
    ["MASKTOKEN", true, ["ma"]], // k and s also match U+212A and U+017F: they split the run
    ["ks", true, null],
  ] as const)("%p (ignoreCase %p)", (source, ignoreCase, expected) => {
    const needles = requiredNeedles(source, ignoreCase);
    expect(needles === null ? null : needles.map((n) => Buffer.from(n.bytes).toString())).toEqual(expected as any);
  });

  // Whatever the prefilter picks, the answer must equal testing every line with the RegExp.
  const lines = [
    "foo bar",
    "FOO",
    "colour",
    "color",
    "x1y22",
    "a.b",
    "tab\there",
    "caf\u00e9",
    "CAF\u00c9",
    "\u212aelvin",
    "kelvin",
    "straße",
    "ab",
    "abbbc",
    "",
    "(paren)",
    "emoji 😀 end",
  ];
  test.each([
    "foo",
    "colou?r",
    "\\d{2}",
    "a\\.b",
    "b+c",
    "tab\\t",
    "caf\u00e9",
    "kelvin",
    "ab{0}c",
    "^$",
    "(?:ab)?c",
    "paren\\)",
    "😀",
    "x1|y2",
    "o\\b",
    "\\bend$",
  ])("%p agrees with a line-by-line RegExp, both cases", async (pattern) => {
    await using ws = tempDir();
    put(ws.path, "t.txt", lines.join("\n"));
    for (const ignoreCase of [false, true]) {
      const re = new RegExp(pattern, ignoreCase ? "iu" : "u");
      const expected = lines.flatMap((l, i) => (re.test(l) ? [`t.txt:${i + 1}`] : []));
      expect(where(await found(ws.path, { pattern, ignoreCase }))).toEqual(expected);
    }
  });
});

describe("agrees with ripgrep", () => {
  const RG = "/usr/bin/rg";
  const sh = (cmd: string[], cwd: string) => {
    const p = Bun.spawnSync(cmd, {
      cwd,
      env: { PATH: "/usr/bin:/bin", HOME: cwd, LANG: "C.UTF-8" },
      stdout: "pipe",
      stderr: "pipe",
    });
    return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
  };

  /** A git repository with ignored, binary, hidden, symlinked, long-lined and unterminated files. */
  function generate(root: string): void {
    let seed = 7;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) / 16777216;
    const vocab = [
      "needle",
      "Needle",
      "NEEDLE",
      "needles",
      "a.b(c",
      "axb(c",
      "colour",
      "color",
      "café",
      "CAFÉ",
      "tab\there",
      "x",
      "plain",
      "words",
      "  indented needle",
      "e",
      "ABCDEF",
    ];
    const text = (n: number) =>
      Array.from({ length: n }, () => {
        const words = Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => vocab[Math.floor(rnd() * vocab.length)]);
        return rnd() < 0.02 ? `${"pad ".repeat(120)}${words.join(" ")}` : words.join(" ");
      }).join("\n");
    put(root, ".gitignore", "*.log\nbuild/\n!keep.log\n");
    put(root, "sub/.gitignore", "local*\n");
    for (let i = 0; i < 300; i++)
      put(root, `d${i % 9}/f${i}.txt`, `${text(1 + Math.floor(rnd() * 40))}${i % 5 ? "\n" : ""}`);
    for (const f of ["a.log", "keep.log", "build/x.txt", "sub/local.txt", "sub/kept.txt", ".hidden/h.txt"])
      put(root, f, `${text(20)}\nneedle colour\n`);
    for (let i = 0; i < 5; i++)
      put(
        root,
        `bin/b${i}.dat`,
        Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0]), Buffer.from(`\nneedle colour\n${text(5)}\n`)]),
      );
    put(root, "empty.txt", "");
    put(root, "blank.txt", "\n\n\n");
    symlinkSync("d0/f0.txt", join(root, "link.txt"));
    expect(sh(["git", "init", "-q"], root).code).toBe(0);
  }

  /** One tree for every case (they only read it), made on first use, removed after them. */
  let shared: TempDir | undefined;
  afterAll(() => shared?.[Symbol.asyncDispose]());
  const tree = (): TempDir => {
    if (shared) return shared;
    shared = tempDir();
    generate(shared.path);
    return shared;
  };

  const rgLines = (out: string) =>
    out
      .split("\n")
      .filter((l) => l.startsWith('{"type":"match"'))
      .map((l) => JSON.parse(l).data)
      .map((d) => `${d.path.text}:${d.line_number}`)
      .sort();

  async function allPages(ws: string, args: SearchArgs) {
    const out: string[] = [];
    let cursor: string | undefined;
    do {
      const p = await found(ws, { ...args, limit: 1000, ...(cursor ? { cursor } : {}) });
      out.push(...where(p));
      cursor = p.nextCursor;
    } while (cursor);
    return out.sort();
  }

  test.each([
    ["rg needle", { pattern: "needle" }, ["needle"]],
    ["rg -F needle", { pattern: "needle", literal: true }, ["-F", "needle"]],
    ["rg -F a.b(c", { pattern: "a.b(c", literal: true }, ["-F", "a.b(c"]],
    ["rg a.b\\(c", { pattern: "a.b\\(c" }, ["a.b\\(c"]],
    ["rg colou?r", { pattern: "colou?r" }, ["colou?r"]],
    ["rg ^\\s+needle", { pattern: "^\\s+needle" }, ["^\\s+needle"]],
    ["rg needles|colour", { pattern: "needles|colour" }, ["needles|colour"]],
    ["rg -i NEEDLE", { pattern: "NEEDLE", ignoreCase: true }, ["-i", "NEEDLE"]],
    ["rg -i CAFÉ", { pattern: "CAFÉ", ignoreCase: true }, ["-i", "CAFÉ"]],
    ["rg -i -F cafe", { pattern: "cafe", ignoreCase: true, literal: true }, ["-i", "-F", "cafe"]],
    ["rg [A-Z]{6}", { pattern: "[A-Z]{6}" }, ["[A-Z]{6}"]],
    ["rg e$", { pattern: "e$" }, ["e$"]],
    ["rg ^$", { pattern: "^$" }, ["^$"]],
    ["rg tab\\there", { pattern: "tab\\there" }, ["tab\\there"]],
  ] as const)("%s", async (_name, args, rgArgs) => {
    if (!(await Bun.file(RG).exists())) throw new Error("ripgrep is missing: apt-get install -y ripgrep");
    const ws = tree();
    const rg = sh([RG, "--json", "--hidden", "-g", "!.git", ...rgArgs], ws.path);
    expect(rg.stderr).toBe("");
    const expected = rgLines(rg.stdout);
    expect(await allPages(ws.path, args)).toEqual(expected);
    if (args.pattern === "needle") expect(expected.length).toBeGreaterThan(100); // the tree is not trivially empty
  });
});

describe("worker threads", () => {
  const spec = (source: string) => ({
    source,
    ignoreCase: false,
    needles: requiredNeedles(source, false),
    largeBytes: LARGE_BYTES,
    lineChars: LINE_CHARS,
    perFile: 1000,
  });
  async function poolLines(ws: string, files: string[], helpers: Helper[]) {
    const prefix = await runPool(
      { base: ws, files, spec: spec("hit"), firstAfter: 0, enoughMatches: 1e9, enoughBytes: 1e12, signal: never },
      helpers,
    );
    return prefix.flatMap((c) => c.matches.map(([i, line]) => `${files[i]}:${line}`));
  }
  // Enough chunks that this thread is still claiming when the worker starts: one tree for both
  // cases (they only read it), made on first use, removed after them.
  let shared: { ws: TempDir; files: string[] } | undefined;
  afterAll(() => shared?.ws[Symbol.asyncDispose]());
  const tree = () => {
    if (shared) return shared;
    const ws = tempDir();
    const files = Array.from({ length: 40 * CHUNK_FILES }, (_, i) => `f${String(i).padStart(4, "0")}.txt`);
    for (const f of files) put(ws.path, f, "miss\nhit\n");
    return (shared = { ws, files });
  };

  test("a worker that cannot start (a binary built without its entry point) leaves the work to this thread", async () => {
    const { ws, files } = tree();
    const lines = await poolLines(ws.path, files, Helper.start(join(ws.path, "no-such-worker.ts"), 2));
    expect(lines).toEqual(files.map((f) => `${f}:2`));
  });

  test("a chunk a worker claimed and never reported is searched again here", async () => {
    const { ws, files } = tree();
    // Claims one chunk, then dies.
    put(
      ws.path,
      "dying-worker.ts",
      "self.onmessage = (e) => { Atomics.add(e.data.control, 0, 1); throw new Error('boom'); };\n",
    );
    const lines = await poolLines(ws.path, files, Helper.start(join(ws.path, "dying-worker.ts"), 1));
    expect(lines).toEqual(files.map((f) => `${f}:2`));
  });
});

describe("file_search: what was checked is what is read", () => {
  test("a searched folder swapped for a symlink after the check is path.changed", async () => {
    await using top = tempDir();
    const ws = join(top.path, "ws");
    put(top.path, "out/outside.txt", "needle\n");
    mkdirSync(ws);
    symlinkSync(join(top.path, "out"), join(ws, "d"));
    const r = (await searchFiles(
      { workspace: ws, stateDir: join(ws, ".toolgate"), signal: never, checked: join(ws, "d") },
      { pattern: "needle", path: "d" },
    )) as any;
    expect(r.refusal.code).toBe("path.changed");
  });

  test("the walk lists no folder whose path now leads through a symlink, and the scanner reads no file whose descriptor is elsewhere", async () => {
    await using top = tempDir();
    const ws = join(top.path, "ws");
    put(top.path, "out/outside.txt", "needle\n");
    mkdirSync(ws);
    symlinkSync(join(top.path, "out"), join(ws, "d"));
    expect(walk({ root: join(ws, "d"), relRoot: "d", skip: new Set(), budget: 100 }).files).toEqual([]);
    const scanner = new Scanner({
      source: "needle",
      ignoreCase: false,
      needles: requiredNeedles("needle", false),
      largeBytes: LARGE_BYTES,
      lineChars: LINE_CHARS,
      perFile: 10,
    });
    expect(scanner.scan(join(ws, "d", "outside.txt")).status).toBe(Status.unreadable);
    expect(scanner.scan(join(top.path, "out", "outside.txt")).matches).toEqual([[1, "needle", false]]);
  });
});

describe("file_search: files opened below the root (openat2)", () => {
  test("a file reached through a symlinked folder is not read; a symlinked file is counted as a link", async () => {
    await using top = tempDir();
    const ws = join(top.path, "ws");
    put(top.path, "out/outside.txt", "needle\n");
    put(ws, "in.txt", "needle\n");
    symlinkSync(join(top.path, "out"), join(ws, "d"));
    symlinkSync("in.txt", join(ws, "l.txt"));
    const spec = {
      source: "needle",
      ignoreCase: false,
      needles: requiredNeedles("needle", false),
      largeBytes: LARGE_BYTES,
      lineChars: LINE_CHARS,
      perFile: 10,
    };
    const scanner = new Scanner(spec, ws, await hostPlatform().openBeneath(OPEN_FLAGS));
    try {
      expect([
        scanner.scan(join(ws, "in.txt")).status,
        scanner.scan(join(ws, "d", "outside.txt")).status,
        scanner.scan(join(ws, "l.txt")).status,
      ]).toEqual([Status.searched, Status.unreadable, Status.link]);
    } finally {
      scanner.close();
    }
  });
});
