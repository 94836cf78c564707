import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { makeStateFolder } from "../../src/state/folder.ts";
import { tempDir } from "../helpers.ts";

describe("makeStateFolder", () => {
  test("a folder it makes is 0700 and ignores itself", async () => {
    await using dir = tempDir();
    const state = join(dir.path, "a", "state");
    makeStateFolder(state);
    expect(statSync(state).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(state, ".gitignore"), "utf8").split("\n")).toContain("*");
  });

  test("a folder that already exists gets no .gitignore", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, "s"));
    makeStateFolder(join(dir.path, "s"));
    expect(existsSync(join(dir.path, "s", ".gitignore"))).toBe(false);
  });
});
