import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import fileFind, { ANSWER_BOUND_CHARS, findFiles } from "../../../src/tools/files/file-find.ts";
import { tempDir, toolContext, type TempDir } from "../../helpers.ts";
import { isSecretPath } from "../../../src/fs/secret-files.ts";
import type { Code } from "../../../src/result/codes.ts";

const put = (root: string, rel: string, body = ""): void => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), body);
};
const refusal = (code: Code) => ({ ok: false as const, refusal: { code, message: expect.any(String) } });
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Every path a listing reaches, page by page with nextCursor; each page checked against the bounds. */
function allPages(ws: string, pattern: string, limit: number): { paths: string[]; pages: number } {
  const paths: string[] = [];
  let cursor: string | undefined;
  for (let pages = 1; ; pages++) {
    const r = findFiles(ws, join(ws, ".toolgate"), pattern, ".", cursor, limit) as any;
    expect(r.ok).toBe(true);
    expect(r.value.count).toBe(r.value.paths.length);
    expect(Buffer.byteLength(JSON.stringify(r.value))).toBeLessThan(65536);
    paths.push(...r.value.paths);
    if (!r.value.truncated) return { paths, pages };
    expect(r.value.nextCursor).toBe(r.value.paths.at(-1));
    cursor = r.value.nextCursor;
  }
}

/**
 * A workspace exercising the ignore rules: root, nested and negated patterns, a directory-only
 * pattern, an anchored one, a case-sensitive one, plus .git and the state folder.
 */
function project(ws: string): void {
  put(ws, ".gitignore", "*.log\n!keep.log\nbuild/\n/root-only.txt\n*.TMP\n");
  for (const f of ["README.md", ".env", "a.log", "keep.log", "root-only.txt", "notes.tmp", "build/out.js", "src/build"])
    put(ws, f);
  put(ws, "src/.gitignore", "*.test.ts\n");
  for (const f of ["src/index.ts", "src/root-only.txt", "src/util/x.ts", "src/util/x.test.ts", "src/util/deep/y.ts"])
    put(ws, f);
  put(ws, "docs/.gitignore", "!debug.log\n");
  for (const f of [
    "docs/guide.md",
    "docs/debug.log",
    "docs/other.log",
    "docs/build/x.md",
    ".git/HEAD",
    ".toolgate/state.db",
  ])
    put(ws, f);
}
const PROJECT_ALL = [
  ".env",
  ".gitignore",
  "README.md",
  "docs/.gitignore",
  "docs/debug.log",
  "docs/guide.md",
  "keep.log",
  "notes.tmp",
  "src/.gitignore",
  "src/build",
  "src/index.ts",
  "src/root-only.txt",
  "src/util/deep/y.ts",
  "src/util/x.ts",
];
/** What file_find answers when it would list `paths`: the project's .env (a well-known secret file) is left out and counted. */
const listing = (pattern: string, path: string, paths: string[], extra: Record<string, unknown> = {}) => {
  const kept = paths.filter((p) => p !== ".env");
  return {
    ok: true as const,
    value: {
      pattern,
      path,
      paths: kept,
      count: kept.length,
      total: kept.length,
      truncated: false,
      scanCapped: false,
      skippedSecretFiles: paths.length - kept.length,
      ...extra,
    },
  };
};

describe("listing and ignore rules", () => {
  test("the default pattern lists every file, top-level ones included, sorted, ignore rules applied", async () => {
    await using ws = tempDir();
    project(ws.path);
    expect(findFiles(ws.path, join(ws.path, ".toolgate"), "**/*", ".", undefined, 1000)).toEqual(
      listing("**/*", ".", PROJECT_ALL),
    );
    expect(await fileFind.handler({}, toolContext(ws.path))).toEqual(listing("**/*", ".", PROJECT_ALL));
  });

  test.each([
    ["*", [".env", ".gitignore", "README.md", "keep.log", "notes.tmp"]],
    ["*.md", ["README.md"]],
    ["**/*.md", ["README.md", "docs/guide.md"]],
    ["**/*.log", ["docs/debug.log", "keep.log"]],
    ["src/**/*.ts", ["src/index.ts", "src/util/deep/y.ts", "src/util/x.ts"]],
    ["src/*", ["src/.gitignore", "src/build", "src/index.ts", "src/root-only.txt"]],
    ["src/*/*.ts", ["src/util/x.ts"]],
    ["**/util/**", ["src/util/deep/y.ts", "src/util/x.ts"]],
    ["src/util", ["src/util/deep/y.ts", "src/util/x.ts"]],
    ["src/util/", ["src/util/deep/y.ts", "src/util/x.ts"]],
    ["src/util/x.ts", ["src/util/x.ts"]],
    ["./src/*.ts", ["src/index.ts"]],
    [".", PROJECT_ALL],
    ["?EADME.*", ["README.md"]],
    ["[Rk]*", ["README.md", "keep.log"]],
    ["{README,keep}.*", ["README.md", "keep.log"]],
    ["src/util/x", []],
    ["nothing", []],
  ])("pattern %j", async (pattern, paths) => {
    await using ws = tempDir();
    project(ws.path);
    expect(findFiles(ws.path, join(ws.path, ".toolgate"), pattern, ".", undefined, 1000)).toEqual(
      listing(pattern, ".", paths),
    );
  });

  test.each([["/etc/*"], ["../*"], ["src/../../*"], ["./../x"]])(
    "pattern %j leaving the folder is refused find.invalid",
    async (pattern) => {
      await using ws = tempDir();
      project(ws.path);
      expect(findFiles(ws.path, join(ws.path, ".toolgate"), pattern, ".", undefined, 10)).toEqual(
        refusal("find.invalid"),
      );
    },
  );

  test("paths sort by UTF-16 code unit, whatever their case or script", async () => {
    await using ws = tempDir();
    const names = ["b", "B", "a", "_", "Z", "é", "~", "😀", "\uff5e", "a b", "a-b", "a.b", "a/b"];
    for (const n of names) put(ws.path, n === "a" ? "a/x" : n);
    const expected = names.map((n) => (n === "a" ? "a/x" : n)).sort(byCodeUnit);
    expect(expected.slice(-2)).toEqual(["😀", "\uff5e"]); // code units, not code points or UTF-8 bytes
    expect((findFiles(ws.path, join(ws.path, ".toolgate"), "**/*", ".", undefined, 100) as any).value.paths).toEqual(
      expected,
    );
  });

  test("the state folder is never listed, wherever it is configured", async () => {
    await using ws = tempDir();
    for (const f of ["var/state/db", "var/other/f", ".toolgate/db", "x"]) put(ws.path, f);
    expect((findFiles(ws.path, join(ws.path, "var/state"), "**/*", ".", undefined, 100) as any).value.paths).toEqual([
      ".toolgate/db",
      "var/other/f",
      "x",
    ]);
  });

  test("a .git file (worktree or submodule) is never listed, nor anything in .git", async () => {
    await using ws = tempDir();
    put(ws.path, ".git", "gitdir: /elsewhere\n");
    put(ws.path, "sub/.git/config");
    put(ws.path, "sub/f");
    expect((findFiles(ws.path, join(ws.path, ".toolgate"), "**/*", ".", undefined, 100) as any).value.paths).toEqual([
      "sub/f",
    ]);
  });

  test("symlinks are listed as themselves and never followed; pipes are not listed", async () => {
    await using top = tempDir();
    const ws = join(top.path, "ws");
    put(top.path, "outside/secret.txt");
    put(ws, "src/a.ts");
    symlinkSync("src", join(ws, "in-dir"));
    symlinkSync("src/a.ts", join(ws, "in-file"));
    symlinkSync(join(top.path, "outside"), join(ws, "out-dir"));
    symlinkSync("nowhere", join(ws, "dangling"));
    expect(Bun.spawnSync(["mkfifo", join(ws, "pipe")]).exitCode).toBe(0);
    expect((findFiles(ws, join(ws, ".toolgate"), "**/*", ".", undefined, 100) as any).value.paths).toEqual([
      "dangling",
      "in-dir",
      "in-file",
      "out-dir",
      "src/a.ts",
    ]);
  });

  test("ignore rules are case-sensitive, as git's are", async () => {
    await using ws = tempDir();
    put(ws.path, ".gitignore", "*.TMP\nBuild/\n");
    for (const f of ["a.tmp", "b.TMP", "build/x", "Build/y"]) put(ws.path, f);
    expect((findFiles(ws.path, join(ws.path, ".toolgate"), "**/*", ".", undefined, 100) as any).value.paths).toEqual([
      ".gitignore",
      "a.tmp",
      "build/x",
    ]);
  });

  test("a symlinked .gitignore is not followed (git does not follow one either)", async () => {
    await using top = tempDir();
    const ws = join(top.path, "ws");
    put(top.path, "rules", "*.txt\n");
    put(ws, "a.txt");
    symlinkSync(join(top.path, "rules"), join(ws, ".gitignore"));
    expect((findFiles(ws, join(ws, ".toolgate"), "**/*", ".", undefined, 100) as any).value.paths).toEqual([
      ".gitignore",
      "a.txt",
    ]);
  });
});

describe("narrowing with path", () => {
  test.each([
    [
      "src",
      "**/*",
      ["src/.gitignore", "src/build", "src/index.ts", "src/root-only.txt", "src/util/deep/y.ts", "src/util/x.ts"],
    ],
    ["src", "*.ts", ["src/index.ts"]],
    ["./src/", "util", ["src/util/deep/y.ts", "src/util/x.ts"]],
    ["src/util", "**/*", ["src/util/deep/y.ts", "src/util/x.ts"]],
    ["docs", "**/*", ["docs/.gitignore", "docs/debug.log", "docs/guide.md"]],
    ["src/util/deep", "*", ["src/util/deep/y.ts"]],
  ])("path %j with pattern %j keeps the ancestors' ignore rules", async (path, pattern, paths) => {
    await using ws = tempDir();
    project(ws.path);
    const rel = path.replace(/^\.\//, "").replace(/\/$/, "");
    expect(findFiles(ws.path, join(ws.path, ".toolgate"), pattern, path, undefined, 1000)).toEqual(
      listing(pattern, rel, paths),
    );
  });

  test.each([["build"], ["docs/build"], [".git"], [".toolgate"]])(
    "path %j inside an excluded folder lists nothing, and says why",
    async (path) => {
      await using ws = tempDir();
      project(ws.path);
      expect(findFiles(ws.path, join(ws.path, ".toolgate"), "**/*", path, undefined, 1000)).toEqual(
        listing("**/*", path, [], { pathIgnored: true }),
      );
    },
  );

  test.each([
    ["a missing folder", "nope", "file.missing"],
    ["a file", "README.md", "file.not_a_directory"],
    ["the parent", "..", "path.outside_workspace"],
    ["an absolute path", "/tmp", "path.outside_workspace"],
    ["a symlink leading out", "out", "path.outside_workspace"],
    ["link/.. where link leads out", "out/..", "path.outside_workspace"],
  ] as [string, string, Code][])("%s (%s) is refused %s", async (_name, path, code) => {
    await using top = tempDir();
    const ws = join(top.path, "ws");
    project(ws);
    put(top.path, "outside/f");
    symlinkSync(join(top.path, "outside"), join(ws, "out"));
    expect(findFiles(ws, join(ws, ".toolgate"), "**/*", path, undefined, 10)).toEqual(refusal(code));
    if (code === "path.outside_workspace")
      expect(
        fileFind.needs(
          { path },
          { workspace: ws, scratch: join(ws, ".scratch"), stateDir: join(ws, ".toolgate"), skillDirs: [] },
        ),
      ).toEqual(refusal(code));
  });
});

describe("bounds", () => {
  test.each([[1], [7], [10], [57], [1000]])("paging with limit %d visits every match exactly once", async (limit) => {
    await using ws = tempDir();
    const all = Array.from({ length: 57 }, (_, i) => `d${i % 4}/f${String(i).padStart(2, "0")}.txt`).sort(byCodeUnit);
    for (const f of all) put(ws.path, f);
    const { paths, pages } = allPages(ws.path, "**/*", limit);
    expect(paths).toEqual(all);
    expect(pages).toBe(Math.max(1, Math.ceil(57 / limit)));
  });

  test("the answer bound pages long listings, each page under the 64 KiB output boundary", async () => {
    await using ws = tempDir();
    // 400 names of ~200 bytes, many serializing to more than their length.
    const all = Array.from(
      { length: 400 },
      (_, i) => `${String(i).padStart(3, "0")}-${["é", '"', "\\", "x"][i % 4]!.repeat(i % 4 === 0 ? 98 : 196)}`,
    ).sort(byCodeUnit);
    for (const f of all) put(ws.path, f);
    const first = findFiles(ws.path, join(ws.path, ".toolgate"), "**/*", ".", undefined, 5000) as any;
    expect(first.value.truncated).toBe(true);
    expect(
      Buffer.byteLength(JSON.stringify(first.value.paths)) + Buffer.byteLength(JSON.stringify(first.value.nextCursor)),
    ).toBeLessThanOrEqual(ANSWER_BOUND_CHARS + 2);
    const { paths, pages } = allPages(ws.path, "**/*", 5000);
    expect(paths).toEqual(all);
    expect(pages).toBeGreaterThan(1);
  });

  test("a cursor between entries resumes after it", async () => {
    await using ws = tempDir();
    for (const f of ["a", "c", "e"]) put(ws.path, f);
    expect(findFiles(ws.path, join(ws.path, ".toolgate"), "**/*", ".", "b", 10)).toEqual({
      ok: true,
      value: {
        pattern: "**/*",
        path: ".",
        paths: ["c", "e"],
        count: 2,
        total: 3,
        truncated: false,
        scanCapped: false,
        skippedSecretFiles: 0,
      },
    });
    expect((findFiles(ws.path, join(ws.path, ".toolgate"), "**/*", ".", "e", 10) as any).value.paths).toEqual([]);
  });

  test.each([
    [12, false, 12],
    [11, true, 11],
    [3, true, 3],
  ])("a walk budget of %d entries over 12 files: scanCapped %p, %d listed", async (budget, scanCapped, count) => {
    await using ws = tempDir();
    for (let i = 0; i < 12; i++) put(ws.path, `f${String(i).padStart(2, "0")}`);
    const r = findFiles(ws.path, join(ws.path, ".toolgate"), "**/*", ".", undefined, 100, budget) as any;
    expect([r.value.scanCapped, r.value.count, r.value.truncated]).toEqual([scanCapped, count, false]);
  });

  test("the budget counts entries in every folder the walk enters", async () => {
    await using ws = tempDir();
    for (const f of ["a/1", "a/2", "b/1", "b/2"]) put(ws.path, f); // 2 + 4 entries
    const r = (budget: number) =>
      (findFiles(ws.path, join(ws.path, ".toolgate"), "**/*", ".", undefined, 100, budget) as any).value;
    expect([r(6).scanCapped, r(6).count, r(5).scanCapped]).toEqual([false, 4, true]);
  });
});

describe("agrees with git ls-files --cached --others --exclude-standard", () => {
  /** A git with no system or user configuration (so no global excludes file). */
  function git(cwd: string, home: string, ...args: string[]): string {
    const env = {
      PATH: "/usr/bin:/bin",
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    };
    const r = Bun.spawnSync(["git", ...args], { cwd, env, stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
    return r.stdout.toString();
  }
  const lsFiles = (cwd: string, home: string, pathspec: string) =>
    git(cwd, home, "ls-files", "-z", "--full-name", "--cached", "--others", "--exclude-standard", "--", pathspec)
      .split("\0")
      .filter((p) => p !== "")
      .sort(byCodeUnit);

  /** A deterministic tree: nested folders, awkward names, nested .gitignore files with negations. */
  function generate(ws: string): { early: string[]; late: string[] } {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const dirs = [
      "",
      "src",
      "src/lib",
      "src/lib/deep",
      "docs",
      "docs/api",
      "build",
      "src/build",
      "logs",
      "d3",
      "d3/keep",
      "d3/drop",
      "é t",
      "src/cache/x",
      ".github/workflows",
    ];
    const names = [
      "index.ts",
      "util.ts",
      "a.test.ts",
      "README.md",
      "notes.md",
      "x.log",
      "keep.log",
      "important.tmp",
      "junk.tmp",
      "data.json",
      ".env",
      "...",
      "[x].ts",
      "-dash",
      "sp ace.txt",
      "ü.md",
      "Mixed.LOG",
    ];
    const files = new Set<string>();
    for (const d of dirs)
      for (let i = 0; i < 9; i++)
        files.add(d === "" ? names[rand(names.length)]! : `${d}/${names[rand(names.length)]!}`);
    const sorted = [...files].sort(byCodeUnit);
    for (const f of sorted) put(ws, f, `${f}\n`);
    put(ws, "logs/.keep");
    put(
      ws,
      ".gitignore",
      "*.log\n!keep.log\n*.tmp\n!important.tmp\nbuild/\n/README.md\nlogs/*\n!logs/.keep\n**/cache/**\n# comment\n\\#hash\ntrailing.txt   \n",
    );
    put(ws, "src/.gitignore", "*.test.ts\n!x.log\ndeep/\n");
    put(ws, "docs/.gitignore", "*.md\n!README.md\n/api/*.json\n");
    put(ws, "d3/.gitignore", "/*\n!/keep/\n!.gitignore\n");
    put(ws, "src/lib/.gitignore", "!*.tmp\n");
    put(ws, "#hash");
    put(ws, "trailing.txt");
    symlinkSync("src/lib", join(ws, "lib-link"));
    mkdirSync(join(ws, "empty/dir"), { recursive: true });
    const early = sorted.filter((_, i) => i % 2 === 0);
    return { early, late: sorted.filter((_, i) => i % 2 === 1) };
  }

  /** One repository for every pattern (they only read it), made on first use, removed after them. */
  let mixed: { top: TempDir; ws: string } | undefined;
  afterAll(() => mixed?.top[Symbol.asyncDispose]());
  function mixedRepo(): { top: { path: string }; ws: string } {
    if (mixed) return mixed;
    const top = tempDir();
    const ws = join(top.path, "repo");
    mkdirSync(ws);
    git(ws, top.path, "init", "-q");
    const { early, late } = generate(ws);
    // Commit half of what git would add; the other half stays untracked, the committed half then changes.
    git(ws, top.path, "add", "-A");
    git(ws, top.path, "rm", "-q", "--cached", "--ignore-unmatch", "--", ...late);
    git(ws, top.path, "commit", "-q", "-m", "first");
    for (const f of early) put(ws, f, "changed\n");
    put(ws, "src/new-after-commit.ts");
    put(ws, "docs/new.md");
    put(ws, "docs/README.md");
    return (mixed = { top, ws });
  }

  test.each([
    ["**/*", "."],
    ["*", "."],
    ["*.md", "."],
    ["**/*.md", "."],
    ["src/**/*.ts", "."],
    ["src/*", "."],
    ["src", "."],
    ["**/keep.log", "."],
    ["**/*", "src"],
    ["*.ts", "src/lib"],
    ["**/*", "d3"],
    ["**/*", "logs"],
  ])("pattern %j in %j, over committed and uncommitted files", async (pattern, path) => {
    const { top, ws } = mixedRepo();
    const ours = findFiles(ws, join(ws, ".toolgate"), pattern, path, undefined, 5000) as any;
    expect(ours.ok).toBe(true);
    const theirs = lsFiles(path === "." ? ws : join(ws, path), top.path, `:(glob)${pattern}`);
    expect(theirs.length).toBeGreaterThan(0);
    expect(git(ws, top.path, "ls-files", "--others", "--exclude-standard").length).toBeGreaterThan(0); // untracked files take part
    // Git lists the well-known secret files too; file_find leaves them out and counts them.
    const secret = theirs.filter((f) => isSecretPath(f));
    expect(ours.value.paths).toEqual(theirs.filter((f) => !isSecretPath(f)));
    expect(ours.value.skippedSecretFiles).toBe(secret.length);
  });

  test("a tracked file that .gitignore matches is not listed (file_find sees the working tree, not git's index)", async () => {
    await using top = tempDir();
    const ws = join(top.path, "repo");
    put(ws, "dist/app.js");
    put(ws, "src/a.ts");
    git(ws, top.path, "init", "-q");
    git(ws, top.path, "add", "-A");
    git(ws, top.path, "commit", "-q", "-m", "first");
    put(ws, ".gitignore", "dist/\n");
    expect(lsFiles(ws, top.path, ":(glob)**/*")).toEqual([".gitignore", "dist/app.js", "src/a.ts"]);
    expect((findFiles(ws, join(ws, ".toolgate"), "**/*", ".", undefined, 100) as any).value.paths).toEqual([
      ".gitignore",
      "src/a.ts",
    ]);
  });
});

describe("file_find: what was checked is what is walked", () => {
  test("a walked folder swapped for a symlink after the check is path.changed, never listed", async () => {
    await using top = tempDir();
    const ws = join(top.path, "ws");
    put(top.path, "out/outside.txt");
    mkdirSync(ws);
    symlinkSync(join(top.path, "out"), join(ws, "d"));
    expect(findFiles(ws, join(ws, ".toolgate"), "**/*", "d", undefined, 100, 1000, join(ws, "d"))).toEqual(
      refusal("path.changed"),
    );
  });
});
