import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isInside, relativeInside, resolveInside } from "../../../src/tools/files/workspace.ts";
import { tempDir } from "../../helpers.ts";
import type { Code } from "../../../src/result/codes.ts";

/** top/ws (the workspace) with a file, a folder, a sibling "ws2" and an "outside" folder, plus links. */
function layout(top: string): string {
  const ws = join(top, "ws");
  mkdirSync(join(ws, "sub"), { recursive: true });
  mkdirSync(join(top, "ws2"));
  mkdirSync(join(top, "outside"));
  writeFileSync(join(ws, "a.txt"), "a");
  writeFileSync(join(ws, "sub/b.txt"), "b");
  writeFileSync(join(top, "ws2/f"), "f");
  symlinkSync("sub", join(ws, "in-dir"));
  symlinkSync("sub/b.txt", join(ws, "in-file"));
  symlinkSync(join(top, "outside"), join(ws, "out-dir"));
  symlinkSync("../ws2/f", join(ws, "out-file"));
  symlinkSync("loop-b", join(ws, "loop-a"));
  symlinkSync("loop-a", join(ws, "loop-b"));
  return ws;
}

describe("resolveInside", () => {
  test.each([
    [".", "."],
    ["", "."],
    ["a.txt", "a.txt"],
    ["./a.txt", "a.txt"],
    ["sub//b.txt", "sub/b.txt"],
    ["sub/../a.txt", "a.txt"],
    ["sub/./b.txt/", "sub/b.txt"],
    ["in-dir/b.txt", "sub/b.txt"],
    ["in-file", "sub/b.txt"],
    ["in-dir/../a.txt", "a.txt"],
    ["new/folder/file.txt", "new/folder/file.txt"],
    ["sub/new.txt", "sub/new.txt"],
    ["in-dir/new.txt", "sub/new.txt"],
    // `..` is physical, as the kernel applies it: out through a link, then back in by name.
    ["out-dir/../ws/a.txt", "a.txt"],
  ])("%j resolves inside to %j", async (path, rel) => {
    await using top = tempDir();
    const ws = layout(top.path);
    expect(resolveInside(ws, path)).toEqual({ ok: true, value: { abs: rel === "." ? ws : join(ws, rel), rel } });
  });

  test.each([
    ["..", "path.outside_workspace"],
    ["../ws2/f", "path.outside_workspace"],
    ["sub/../../ws2", "path.outside_workspace"],
    ["/etc/hostname", "path.outside_workspace"],
    ["C:\\Windows", "path.outside_workspace"],
    ["out-dir", "path.outside_workspace"],
    ["out-dir/new.txt", "path.outside_workspace"],
    ["out-dir/..", "path.outside_workspace"],
    ["out-file", "path.outside_workspace"],
    ["a\0b", "path.invalid"],
    ["loop-a", "path.invalid"],
  ] as [string, Code][])("%j is refused %s", async (path, code) => {
    await using top = tempDir();
    const ws = layout(top.path);
    expect(resolveInside(ws, path)).toEqual({ ok: false, refusal: { code, message: expect.any(String) } });
  });

  test("an absolute path is refused even when it names a file inside", async () => {
    await using top = tempDir();
    const ws = layout(top.path);
    expect(resolveInside(ws, join(ws, "a.txt"))).toEqual({
      ok: false,
      refusal: { code: "path.outside_workspace", message: expect.any(String) },
    });
  });

  test("a workspace reached through a symlink reports paths against its real root", async () => {
    await using top = tempDir();
    const ws = layout(top.path);
    symlinkSync(ws, join(top.path, "ws-link"));
    expect(resolveInside(join(top.path, "ws-link"), "in-file")).toEqual({
      ok: true,
      value: { abs: join(ws, "sub/b.txt"), rel: "sub/b.txt" },
    });
  });
});

describe("relativeInside", () => {
  test.each([
    ["ws", "."],
    ["ws/.toolgate", ".toolgate"],
    ["ws/sub", "sub"],
    ["ws/in-dir/x", "sub/x"],
    ["ws2", null],
    ["ws/out-dir", null],
    ["outside/x", null],
  ])("%s is %j", async (p, rel) => {
    await using top = tempDir();
    const ws = layout(top.path);
    expect(relativeInside(ws, join(top.path, p))).toBe(rel);
  });
});

describe("isInside", () => {
  test.each([
    ["/srv/a", "/srv/a", true],
    ["/srv/a", "/srv/a/x", true],
    ["/srv/a", "/srv/ab", false],
    ["/srv/a", "/srv", false],
    ["/", "/anything", true],
  ])("isInside(%s, %s) is %p", (root, p, inside) => {
    expect(isInside(root, p)).toBe(inside);
  });
});
