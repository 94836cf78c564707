import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  linkSync,
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
import { realIo } from "../../../src/tools/files/atomic-write.ts";
import fileWrite, { missingFolders, writeFile } from "../../../src/tools/files/file-write.ts";
import { readFile } from "../../../src/tools/files/file-read.ts";
import { runUnprivileged, tempDir, toolContext } from "../../helpers.ts";

const put = (root: string, rel: string, body: string | Uint8Array): void => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), body);
};
const digestOf = (body: string | Uint8Array) => `sha256:${createHash("sha256").update(body).digest("hex")}`;
const refusal = (code: string) => ({
  ok: false as const,
  refusal: expect.objectContaining({ code, message: expect.any(String) }),
});
const body = (root: string, rel: string) => readFileSync(join(root, rel), "utf8");
const needsOf = (ws: string, path: string) =>
  fileWrite.needs({ path, content: "" }, { workspace: ws, scratch: ws, stateDir: ws, skillDirs: [] });
const failing = (code: string) => () => {
  throw Object.assign(new Error(code), { code });
};

describe("file_write: the happy path", () => {
  test("creates a file: digest (as file_read reports it), bytes, created", async () => {
    await using ws = tempDir();
    const content = "héllo\nworld\n";
    const r = await writeFile(ws.path, { path: "a.txt", content });
    expect(r).toEqual({
      ok: true,
      value: { path: "a.txt", digest: digestOf(content), bytes: Buffer.byteLength(content), created: true },
    });
    expect(body(ws.path, "a.txt")).toBe(content);
    expect((readFile(ws.path, "a.txt", 1, 10) as any).value.digest).toBe(digestOf(content));
  });

  test("a new file gets the default mode (0o666 less the umask)", async () => {
    await using ws = tempDir();
    await writeFile(ws.path, { path: "a.txt", content: "x" });
    expect(statSync(join(ws.path, "a.txt")).mode & 0o777).toBe(0o666 & ~process.umask());
  });

  test("an empty file is a file", async () => {
    await using ws = tempDir();
    expect(await writeFile(ws.path, { path: "empty", content: "" })).toEqual({
      ok: true,
      value: { path: "empty", digest: digestOf(""), bytes: 0, created: true },
    });
  });

  test("creates missing parent folders", async () => {
    await using ws = tempDir();
    const r = (await writeFile(ws.path, { path: "a/b/c/new.txt", content: "deep\n" })) as any;
    expect([r.value.path, r.value.created, body(ws.path, "a/b/c/new.txt")]).toEqual(["a/b/c/new.txt", true, "deep\n"]);
    expect(statSync(join(ws.path, "a/b")).isDirectory()).toBe(true);
  });

  test("overwrite: true replaces the file whole, keeps its mode, reports created: false", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "old text that is longer\n");
    chmodSync(join(ws.path, "a.txt"), 0o640);
    const r = await writeFile(ws.path, { path: "a.txt", content: "new\n", overwrite: true });
    expect(r).toEqual({ ok: true, value: { path: "a.txt", digest: digestOf("new\n"), bytes: 4, created: false } });
    expect([body(ws.path, "a.txt"), statSync(join(ws.path, "a.txt")).mode & 0o777]).toEqual(["new\n", 0o640]);
    expect(readdirSync(ws.path)).toEqual(["a.txt"]);
  });

  test("overwrite: true on a missing file creates it", async () => {
    await using ws = tempDir();
    expect(((await writeFile(ws.path, { path: "a.txt", content: "x", overwrite: true })) as any).value.created).toBe(
      true,
    );
  });

  test("writing through a symlink inside the workspace replaces the target and keeps the link", async () => {
    await using ws = tempDir();
    put(ws.path, "real.txt", "old\n");
    symlinkSync("real.txt", join(ws.path, "link.txt"));
    const r = (await writeFile(ws.path, { path: "link.txt", content: "new\n", overwrite: true })) as any;
    expect(r.value.path).toBe("real.txt");
    expect([readlinkSync(join(ws.path, "link.txt")), body(ws.path, "real.txt")]).toEqual(["real.txt", "new\n"]);
  });

  test("the declaration: irreversible, approval required", () => {
    expect([fileWrite.name, fileWrite.effect, fileWrite.approval]).toEqual(["file_write", "irreversible", "required"]);
  });

  test("the handler works from the tool context's workspace", async () => {
    await using ws = tempDir();
    const ctx = toolContext(ws.path);
    expect(((await fileWrite.handler({ path: "h.txt", content: "h" }, ctx)) as any).ok).toBe(true);
    expect(body(ws.path, "h.txt")).toBe("h");
  });
});

describe("file_write: needs", () => {
  test("an existing folder: one write need, the file's real path", async () => {
    await using ws = tempDir();
    mkdirSync(join(ws.path, "d"));
    expect(needsOf(ws.path, "d/f.txt")).toEqual({
      ok: true,
      value: [{ kind: "write", value: join(ws.path, "d/f.txt") }],
    });
  });

  test("missing folders: a write need for each, outermost first, then the file", async () => {
    await using ws = tempDir();
    mkdirSync(join(ws.path, "a"));
    expect(needsOf(ws.path, "a/b/c/f.txt")).toEqual({
      ok: true,
      value: [
        { kind: "write", value: join(ws.path, "a/b") },
        { kind: "write", value: join(ws.path, "a/b/c") },
        { kind: "write", value: join(ws.path, "a/b/c/f.txt") },
      ],
    });
    expect(missingFolders(join(ws.path, "a/f.txt"))).toEqual([]);
  });

  test("a symlinked folder is resolved: the needs name real paths", async () => {
    await using ws = tempDir();
    mkdirSync(join(ws.path, "real"));
    symlinkSync("real", join(ws.path, "link"));
    expect(needsOf(ws.path, "link/new/f.txt")).toEqual({
      ok: true,
      value: [
        { kind: "write", value: join(ws.path, "real/new") },
        { kind: "write", value: join(ws.path, "real/new/f.txt") },
      ],
    });
  });

  test.each([["../x"], ["/etc/x"], ["out/x"], ["out/new/x"]])(
    "%s leaves the workspace: refused before any permission is asked",
    async (path) => {
      await using top = tempDir();
      const ws = join(top.path, "ws");
      mkdirSync(ws);
      mkdirSync(join(top.path, "outside"));
      symlinkSync(join(top.path, "outside"), join(ws, "out"));
      expect(needsOf(ws, path)).toEqual(refusal("path.outside_workspace"));
      expect(await writeFile(ws, { path, content: "x" })).toEqual(refusal("path.outside_workspace"));
      expect(readdirSync(join(top.path, "outside"))).toEqual([]);
    },
  );
});

describe("file_write: refusals", () => {
  test("file.exists without overwrite: says to pass overwrite: true; the file is untouched", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "keep\n");
    const r = (await writeFile(ws.path, { path: "a.txt", content: "lost\n" })) as any;
    expect(r).toEqual(refusal("file.exists"));
    expect(r.refusal.message).toContain("overwrite: true");
    expect([body(ws.path, "a.txt"), readdirSync(ws.path)]).toEqual(["keep\n", ["a.txt"]]);
  });

  test("overwrite: false is the same as leaving it out", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "keep\n");
    expect(await writeFile(ws.path, { path: "a.txt", content: "x", overwrite: false })).toEqual(refusal("file.exists"));
  });

  test.each([
    ["a directory", "d", "file.not_a_file"],
    ["a symlink to a directory", "dlink", "file.not_a_file"],
    ["the workspace itself", ".", "file.not_a_file"],
    ["a path ending in a slash", "new/", "file.not_a_file"],
    ["a parent that is a file", "a.txt/x", "file.parent_not_a_folder"],
    ["a grandparent that is a file", "a.txt/x/y", "file.parent_not_a_folder"],
  ])("%s is refused", async (_what, path, code) => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "a\n");
    mkdirSync(join(ws.path, "d"));
    symlinkSync("d", join(ws.path, "dlink"));
    const before = readdirSync(ws.path).sort();
    expect(await writeFile(ws.path, { path, content: "x", overwrite: true })).toEqual(refusal(code));
    expect([readdirSync(ws.path).sort(), readdirSync(join(ws.path, "d")), body(ws.path, "a.txt")]).toEqual([
      before,
      [],
      "a\n",
    ]);
  });

  test("a FIFO is not a regular file", async () => {
    await using ws = tempDir();
    const p = Bun.spawnSync(["mkfifo", join(ws.path, "fifo")]);
    expect(p.exitCode).toBe(0);
    expect(await writeFile(ws.path, { path: "fifo", content: "x", overwrite: true })).toEqual(
      refusal("file.not_a_file"),
    );
  });
});

describe("file_write: protected folders", () => {
  test.each([".git/hooks/pre-commit", "sub/.git/config", ".toolgate/state.db", "link-to-state/x"])(
    "%s is path.protected, whatever the grants; nothing is created",
    async (path) => {
      await using ws = tempDir();
      mkdirSync(join(ws.path, ".toolgate"));
      symlinkSync(".toolgate", join(ws.path, "link-to-state"));
      const before = readdirSync(ws.path).sort();
      expect(
        await writeFile(
          ws.path,
          { path, content: "#!/bin/sh\n", overwrite: true },
          { stateDir: join(ws.path, ".toolgate") },
        ),
      ).toEqual(refusal("path.protected"));
      expect([readdirSync(ws.path).sort(), readdirSync(join(ws.path, ".toolgate"))]).toEqual([before, []]);
    },
  );
});

describe("file_write: atomicity and races", () => {
  test("a file created by someone else between the check and the publish is still file.exists (link, not rename)", async () => {
    await using ws = tempDir();
    const target = join(ws.path, "a.txt");
    const io = {
      ...realIo,
      link: (from: string, to: string) => {
        writeFileSync(target, "theirs\n"); // the other writer wins the race
        linkSync(from, to);
      },
    };
    expect(await writeFile(ws.path, { path: "a.txt", content: "mine\n" }, { io })).toEqual(refusal("file.exists"));
    expect([body(ws.path, "a.txt"), readdirSync(ws.path)]).toEqual(["theirs\n", ["a.txt"]]);
  });

  test("where hard links are unsupported, a new file is still created (checked, then renamed)", async () => {
    await using ws = tempDir();
    const r = (await writeFile(
      ws.path,
      { path: "a.txt", content: "x\n" },
      { io: { ...realIo, link: failing("EPERM") } },
    )) as any;
    expect([r.ok, body(ws.path, "a.txt"), readdirSync(ws.path)]).toEqual([true, "x\n", ["a.txt"]]);
  });

  test("a crash before the rename leaves the original whole and no temporary file", async () => {
    await using ws = tempDir();
    put(ws.path, "a.txt", "original\n");
    const r = await writeFile(
      ws.path,
      { path: "a.txt", content: "replacement\n", overwrite: true },
      { io: { ...realIo, rename: failing("EIO") } },
    );
    expect(r).toEqual(refusal("file.unwritable"));
    expect([body(ws.path, "a.txt"), digestOf(readFileSync(join(ws.path, "a.txt"))), readdirSync(ws.path)]).toEqual([
      "original\n",
      digestOf("original\n"),
      ["a.txt"],
    ]);
  });

  test("a failed publish of a new file leaves nothing at the target", async () => {
    await using ws = tempDir();
    expect(
      await writeFile(ws.path, { path: "a.txt", content: "x" }, { io: { ...realIo, link: failing("EIO") } }),
    ).toEqual(refusal("file.unwritable"));
    expect(existsSync(join(ws.path, "a.txt"))).toBe(false);
    expect(readdirSync(ws.path)).toEqual([]);
  });

  // Root writes anywhere: the call runs as an ordinary user (nobody, when the suite runs as root).
  test("a folder that cannot be written to is file.unwritable, named relative to the workspace", async () => {
    await using ws = tempDir();
    chmodSync(ws.path, 0o777);
    mkdirSync(join(ws.path, "ro"));
    chmodSync(join(ws.path, "ro"), 0o555);
    const call = (path: string) =>
      runUnprivileged(
        ["call", "file_write", JSON.stringify({ path, content: "x" }), "--allow-write", "--approve", "file_write"],
        { cwd: ws.path },
      );
    const r = await call("ro/a.txt");
    expect([r.code, JSON.parse(r.stdout).error_code]).toEqual([1, "file.unwritable"]);
    expect(r.stdout).not.toContain(ws.path);
    const nested = await call("ro/sub/a.txt");
    expect(JSON.parse(nested.stdout).message).toContain('folder "ro/sub"');
    expect(existsSync(join(ws.path, "ro", "a.txt"))).toBe(false);
  });
});

describe("file_write: what was checked is what is written", () => {
  test("a missing folder the gate checked, made a symlink leading out meanwhile, is never written through", async () => {
    await using top = tempDir();
    const ws = join(top.path, "ws");
    mkdirSync(ws);
    mkdirSync(join(top.path, "out"));
    const checked = [join(ws, "d"), join(ws, "d", "new.txt")]; // what needs() listed and the gate checked
    symlinkSync(join(top.path, "out"), join(ws, "d"));
    expect(await writeFile(ws, { path: "d/new.txt", content: "x" }, { checked })).toEqual(refusal("path.changed"));
    expect(readdirSync(join(top.path, "out"))).toEqual([]);
  });

  test("an existing folder swapped for a symlink after the check is path.changed, and nothing lands outside", async () => {
    await using top = tempDir();
    const ws = join(top.path, "ws");
    mkdirSync(join(ws, "d"), { recursive: true });
    mkdirSync(join(top.path, "out"));
    const checked = [join(ws, "d", "new.txt")];
    renameSync(join(ws, "d"), join(ws, "real"));
    symlinkSync(join(top.path, "out"), join(ws, "d"));
    expect(await writeFile(ws, { path: "d/new.txt", content: "x" }, { checked })).toEqual(refusal("path.changed"));
    expect(readdirSync(join(top.path, "out"))).toEqual([]);
  });

  test("missing folders are made one level at a time inside the checked parent", async () => {
    await using ws = tempDir();
    const checked = [join(ws.path, "a"), join(ws.path, "a", "b"), join(ws.path, "a", "b", "c.txt")];
    expect(
      ((await writeFile(ws.path, { path: "a/b/c.txt", content: "deep" }, { checked })) as any).value,
    ).toMatchObject({ path: "a/b/c.txt", created: true });
    expect(body(ws.path, "a/b/c.txt")).toBe("deep");
  });
});
