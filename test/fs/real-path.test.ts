import { expect, test } from "bun:test";
import { realpathSync } from "node:fs";
import { resolveReal, which } from "../../src/fs/real-path.ts";
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
