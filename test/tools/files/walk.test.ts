// The walk lists files in sorted path order (UTF-16 code units, as Array.prototype.sort), so
// file_search can hand the first chunks to its helpers while the walk goes on.
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { walk } from "../../../src/tools/files/walk.ts";
import { tempDir } from "../../helpers.ts";

const put = (root: string, rel: string): void => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), "x\n");
};

describe("walk order", () => {
  test("files come out sorted by whole path, a folder's contents where its name + / sorts", async () => {
    await using ws = tempDir();
    // "-" (0x2d) < "." (0x2e) < "/" (0x2f) < "0": the folder "a" sorts between "a.c" and "a0";
    // an astral character (a surrogate pair, 0xd835...) sorts before U+FFFF, as in UTF-16.
    const files = [
      "a-b",
      "a.c",
      "a/x",
      "a/y/z",
      "a/y-1",
      "a/y.2",
      "a0",
      "B",
      "b/c",
      "b-c",
      "é.txt",
      "é/1",
      "z\u{1d538}",
      "z\uffff",
      "~",
    ];
    for (const f of files) put(ws.path, f);
    symlinkSync("a0", join(ws.path, "a1")); // a symlink is a leaf, listed as itself
    const listed = walk({ root: ws.path, relRoot: "", skip: new Set(), budget: 1000 }).files;
    const expected = [...files, "a1"].sort();
    expect(listed).toEqual(expected);
    expect(listed.indexOf("a/x")).toBeGreaterThan(listed.indexOf("a.c")); // not each folder's files first
  });

  test("progress sees the files found so far, a growing prefix of the result", async () => {
    await using ws = tempDir();
    for (let i = 0; i < 30; i++) put(ws.path, `d${i % 5}/s${i % 3}/f${i}.txt`);
    const seen: string[][] = [];
    const result = walk({
      root: ws.path,
      relRoot: "",
      skip: new Set(),
      budget: 1000,
      progress: (found) => void seen.push([...found]),
    }).files;
    expect(seen.length).toBeGreaterThan(5); // once per folder
    for (const s of seen) expect(result.slice(0, s.length)).toEqual(s);
    expect(result).toEqual([...result].sort());
  });
});
