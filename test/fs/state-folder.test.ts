// The state folder is toolgate's own (fs/state-folder.ts): made 0700 and marked with its own
// identity; a copy, a link, a folder holding a link or one open to others is refused; files are
// new, 0600, under random names, never through a link.
import { describe, expect, test } from "bun:test";
import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  ensureStateFolder,
  MARK_NAME,
  newStateFile,
  ownFolder,
  StateFolderRefused,
  stateFolderProblem,
} from "../../src/fs/state-folder.ts";
import { tempDir } from "../helpers.ts";

describe("ensureStateFolder", () => {
  test("makes the folder 0700 with its mark and a .gitignore; checking it again passes", async () => {
    await using dir = tempDir();
    const state = join(dir.path, "ws", ".toolgate");
    ensureStateFolder(state);
    expect(statSync(state).mode & 0o777).toBe(0o700);
    expect(readdirSync(state).sort()).toEqual([".gitignore", MARK_NAME]);
    expect(readFileSync(join(state, MARK_NAME), "utf8")).toBe(
      `toolgate made this folder: inode ${statSync(state).ino}, born ${statSync(state, { bigint: true }).birthtimeNs}\n`,
    );
    expect(stateFolderProblem(state, true)).toBeNull();
  });

  test("a copy (mark and all) is another folder: refused, naming it", async () => {
    await using dir = tempDir();
    ensureStateFolder(join(dir.path, "a"));
    cpSync(join(dir.path, "a"), join(dir.path, "b"), { recursive: true, preserveTimestamps: true });
    expect(() => ensureStateFolder(join(dir.path, "b"))).toThrow(/its mark names another folder/);
    expect(stateFolderProblem(join(dir.path, "b"))).toBeInstanceOf(StateFolderRefused);
  });

  test("a link, a folder holding a link, one open to others: refused with how to clear it", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, "real"));
    symlinkSync("real", join(dir.path, "link"));
    expect(() => ensureStateFolder(join(dir.path, "link"))).toThrow(/is a symbolic link \(to real\)/);
    ensureStateFolder(join(dir.path, "s"));
    symlinkSync("/etc", join(dir.path, "s", "artifacts"));
    // Checked anew (a folder a child could write): the link is seen.
    expect(stateFolderProblem(join(dir.path, "s"), true)?.message).toContain(
      `holds a symbolic link, ${join(dir.path, "s", "artifacts")}`,
    );
    ensureStateFolder(join(dir.path, "t"));
    chmodSync(join(dir.path, "t"), 0o755);
    expect(stateFolderProblem(join(dir.path, "t"), true)?.hint).toContain("chmod 700");
  });

  test("an empty folder is adopted; one with content and no mark is not, whatever its mode", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, "e"), { mode: 0o755 });
    ensureStateFolder(join(dir.path, "e"));
    expect([statSync(join(dir.path, "e")).mode & 0o777, readdirSync(join(dir.path, "e"))]).toEqual([
      0o700,
      [MARK_NAME],
    ]);
    mkdirSync(join(dir.path, "f"), { mode: 0o700 });
    writeFileSync(join(dir.path, "f", "toolgate.db"), "");
    expect(() => ensureStateFolder(join(dir.path, "f"))).toThrow(/has no mark of toolgate's; it holds toolgate.db/);
  });
});

describe("files in the state folder", () => {
  test("newStateFile: a new 0600 file under a random name each time, in a 0700 folder", async () => {
    await using dir = tempDir();
    const a = newStateFile(dir.path, "prompts", "args-", ".json", "same");
    const b = newStateFile(dir.path, "prompts", "args-", ".json", "same");
    expect(a).not.toBe(b);
    expect(a).toMatch(/\/prompts\/args-[0-9a-f]{32}\.json$/);
    expect([
      statSync(a).mode & 0o777,
      statSync(join(dir.path, "prompts")).mode & 0o777,
      readFileSync(b, "utf8"),
    ]).toEqual([0o600, 0o700, "same"]);
  });

  test("ownFolder refuses a link and a folder open to others; makes a missing one 0700", async () => {
    await using dir = tempDir();
    symlinkSync("/tmp", join(dir.path, "l"));
    expect(() => ownFolder(join(dir.path, "l"))).toThrow(/is a symbolic link/);
    mkdirSync(join(dir.path, "o"));
    chmodSync(join(dir.path, "o"), 0o777);
    expect(() => ownFolder(join(dir.path, "o"))).toThrow(/open to other users \(mode 777\)/);
    expect(statSync(ownFolder(join(dir.path, "m"))).mode & 0o777).toBe(0o700);
  });
});
