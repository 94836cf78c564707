import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, realpathSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { heldRoot, resolveFrom, resolveReal, which } from "../../src/fs/real-path.ts";
import { tempTree } from "../permission/helpers.ts";

test("an existing path resolves to its real path", async () => {
  await using t = tempTree();
  t.file("real/f");
  t.link("alias", t.path("real"));
  expect(resolveReal("alias/f", t.root)).toBe(t.path("real/f"));
  expect(resolveReal(t.path("alias/./f"), "/")).toBe(t.path("real/f"));
});

test("a missing tail is appended to the real path of its nearest existing ancestor", async () => {
  await using t = tempTree();
  t.dir("real");
  t.link("alias", "real"); // relative link target
  expect(resolveReal("alias/new/deeper.txt", t.root)).toBe(t.path("real/new/deeper.txt"));
});

test("`..` after a symlink applies to the link's target, as the kernel does", async () => {
  await using t = tempTree();
  t.dir("grant");
  t.dir("outside/x");
  t.link("grant/a", t.path("outside/x"));
  expect(resolveReal("grant/a/../b", t.root)).toBe(t.path("outside/b"));
  expect(resolveReal("grant/sub/../b", t.root)).toBe(t.path("grant/b"));
  expect(resolveReal("grant/new/../a/f", t.root)).toBe(t.path("outside/x/f"));
});

test("agrees with the kernel's realpath(3) where the path exists", async () => {
  await using t = tempTree();
  t.file("outside/b");
  t.file("grant/b");
  t.dir("outside/x");
  t.link("grant/a", "../outside/x");
  for (const rel of ["grant/a/../b", "grant/a/./../x/../b", "grant/b"])
    expect(resolveReal(rel, t.root)).toBe(realpathSync.native(`${t.root}/${rel}`));
});

test("a dangling symlink resolves to where a write through it would land", async () => {
  await using t = tempTree();
  t.link("grant/dangling", t.path("outside/nothing/yet"));
  expect(resolveReal("grant/dangling", t.root)).toBe(t.path("outside/nothing/yet"));
});

test("a symlink loop and a NUL byte do not resolve", async () => {
  await using t = tempTree();
  t.link("a", "b");
  t.link("b", "a");
  expect(resolveReal("a/x", t.root)).toBeNull();
  expect(resolveReal("x\0y", t.root)).toBeNull();
});

test("which finds an executable on the given PATH only", async () => {
  await using t = tempTree();
  t.file("bin1/tool", "", 0o644); // not executable: skipped
  t.file("bin2/tool", "#!/bin/sh\n", 0o755);
  expect(which("tool", `${t.path("bin1")}:${t.path("bin2")}`, t.root)).toBe(t.path("bin2/tool"));
  expect(which("tool", t.path("bin1"), t.root)).toBeNull();
  expect(which("bin2/tool", t.path("bin2"), t.root)).toBeNull();
});

describe("a held root (the workspace, resolved once per process)", () => {
  test("keeps its first real path; the same folder moved back, or made again there, is taken again", async () => {
    await using t = tempTree();
    t.dir("real/sub");
    t.link("ws", t.path("real"));
    expect(heldRoot(t.path("ws"))).toEqual({ ok: true, real: t.path("real") });
    expect(heldRoot(t.path("ws"))).toEqual({ ok: true, real: t.path("real") });
    renameSync(t.path("real"), t.path("away"));
    renameSync(t.path("away"), t.path("real"));
    expect(heldRoot(t.path("ws"))).toEqual({ ok: true, real: t.path("real") });
    rmSync(t.path("real"), { recursive: true });
    mkdirSync(t.path("real"));
    expect(heldRoot(t.path("ws"))).toEqual({ ok: true, real: t.path("real") });
  });

  test("refuses a folder swapped for a link, or a link turned to another folder", async () => {
    await using t = tempTree();
    t.dir("ws");
    t.dir("elsewhere");
    expect(heldRoot(t.path("ws"))).toEqual({ ok: true, real: t.path("ws") });
    renameSync(t.path("ws"), t.path("ws.moved"));
    symlinkSync(t.path("elsewhere"), t.path("ws"));
    const swapped = heldRoot(t.path("ws"));
    expect(swapped.ok).toBe(false);
    expect(swapped).toMatchObject({ moved: true, why: expect.stringContaining(`now leads to ${t.path("elsewhere")}`) });

    t.dir("a");
    t.dir("b");
    t.link("via", t.path("a"));
    expect(heldRoot(t.path("via"))).toEqual({ ok: true, real: t.path("a") });
    rmSync(t.path("via"));
    symlinkSync(t.path("b"), t.path("via"));
    expect(heldRoot(t.path("via"))).toMatchObject({ ok: false, moved: true });
  });

  test("a process holds a bounded number of folders open (a test run boots hundreds of workspaces)", async () => {
    await using t = tempTree();
    const fds = () => readdirSync("/proc/self/fd").length;
    const before = fds();
    for (let i = 0; i < 100; i++) expect(heldRoot(t.dir(`w${i}`)).ok).toBe(true);
    expect(fds() - before).toBeLessThanOrEqual(16);
    // The most recent ones are still held: a swap is still caught there.
    renameSync(t.path("w99"), t.path("w99.moved"));
    symlinkSync(t.path("w0"), t.path("w99"));
    expect(heldRoot(t.path("w99"))).toMatchObject({ ok: false, moved: true });
  });

  test("a folder that does not exist yet is resolved each time until it does", async () => {
    await using t = tempTree();
    expect(heldRoot(t.path("later"))).toEqual({ ok: true, real: t.path("later") });
    t.dir("real");
    t.link("later", t.path("real"));
    expect(heldRoot(t.path("later"))).toEqual({ ok: true, real: t.path("real") });
  });

  test("paths under a held root resolve as the kernel does, links and `..` included, also after it moved", async () => {
    await using t = tempTree();
    t.file("ws/a/f");
    t.file("ws/b");
    t.file("outside/x/y");
    t.link("ws/out", t.path("outside/x"));
    expect(heldRoot(t.path("ws")).ok).toBe(true);
    for (const rel of ["a/f", "a/../b", "out/y", "out/../x/y", "../ws/b", "out/.."]) {
      const kernel = realpathSync.native(`${t.path("ws")}/${rel}`); // not join(): it would apply `..` lexically
      expect(resolveReal(`${t.path("ws")}/${rel}`, "/")).toBe(kernel);
      expect(resolveFrom(t.path("ws"), rel)).toBe(kernel);
    }
    // Moved away with a link in its place: resolveReal still answers what the kernel would reach.
    renameSync(t.path("ws"), t.path("moved"));
    symlinkSync(t.path("outside"), t.path("ws"));
    expect(resolveReal(t.path("ws/x/y"), "/")).toBe(t.path("outside/x/y"));
  });
});
