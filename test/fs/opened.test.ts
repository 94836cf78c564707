// openChecked and friends: a checked real path is opened only if the descriptor is the object at
// exactly that path; names looked up through a folder's descriptor stay in that folder.
import { describe, expect, test } from "bun:test";
import { closeSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CHANGED, fdPath, inDir, kindAt, O_DIR, O_FILE, openChecked } from "../../src/fs/opened.ts";
import { tempDir } from "../helpers.ts";

describe("openChecked", () => {
  test("the checked path itself opens, and its descriptor reports that path", async () => {
    await using t = tempDir();
    writeFileSync(join(t.path, "f"), "x");
    const o = openChecked(join(t.path, "f"), O_FILE);
    if (!o.ok) throw new Error(o.code);
    expect(fdPath(o.fd)).toBe(join(t.path, "f"));
    closeSync(o.fd);
  });

  test.each([
    ["a last component that is now a symlink", "f", O_FILE],
    ["a folder above it that is now a symlink", "d/f", O_FILE],
    ["a folder that is now a symlink, opened as a folder (Linux says ENOTDIR)", "d", O_DIR],
  ])("%s is CHANGED, never followed", async (_what, rel, flags) => {
    await using t = tempDir();
    mkdirSync(join(t.path, "elsewhere"));
    writeFileSync(join(t.path, "elsewhere", "f"), "outside");
    symlinkSync(join(t.path, "elsewhere", "f"), join(t.path, "f"));
    symlinkSync(join(t.path, "elsewhere"), join(t.path, "d"));
    expect(openChecked(join(t.path, rel), flags)).toEqual({ ok: false, code: CHANGED });
  });

  test("errors other than a swap keep their errno", async () => {
    await using t = tempDir();
    expect(openChecked(join(t.path, "missing"), O_FILE)).toEqual({ ok: false, code: "ENOENT" });
    writeFileSync(join(t.path, "f"), "");
    expect(openChecked(join(t.path, "f"), O_DIR)).toEqual({ ok: false, code: "ENOTDIR" });
  });
});

describe("kindAt", () => {
  test("a folder, a file, a missing name, and a symlink (CHANGED: checked paths are resolved)", async () => {
    await using t = tempDir();
    mkdirSync(join(t.path, "d"));
    writeFileSync(join(t.path, "f"), "");
    symlinkSync("f", join(t.path, "l"));
    expect([
      kindAt(join(t.path, "d")),
      kindAt(join(t.path, "f")),
      kindAt(join(t.path, "nope")),
      kindAt(join(t.path, "l")),
    ]).toEqual(["dir", "file", "ENOENT", CHANGED]);
  });
});

describe("inDir", () => {
  test("a name looked up through a folder's descriptor stays in that folder after its name is swapped for a symlink", async () => {
    await using t = tempDir();
    mkdirSync(join(t.path, "d"));
    mkdirSync(join(t.path, "outside"));
    const o = openChecked(join(t.path, "d"), O_DIR);
    if (!o.ok) throw new Error(o.code);
    renameSync(join(t.path, "d"), join(t.path, "moved"));
    symlinkSync(join(t.path, "outside"), join(t.path, "d"));
    writeFileSync(inDir(o.fd, "new.txt"), "here");
    closeSync(o.fd);
    expect(readFileSync(join(t.path, "moved", "new.txt"), "utf8")).toBe("here");
    expect(() => readFileSync(join(t.path, "outside", "new.txt"))).toThrow();
  });
});
