import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { probeState, whyUnusable } from "../../src/state/unusable.ts";
import { tempDir } from "../helpers.ts";

describe("probeState (writes nothing)", () => {
  test("an existing folder, and a missing one under a writable folder, look usable", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, "s"));
    expect(probeState(join(dir.path, "s"))).toBeNull();
    expect(probeState(join(dir.path, "a", "b", "c"))).toBeNull();
  });

  test("a file where the folder would be, or above it", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "f"), "");
    expect(probeState(join(dir.path, "f"))?.code).toBe("EEXIST");
    expect(probeState(join(dir.path, "f", "state"))?.code).toBe("ENOTDIR");
    expect(probeState("/dev/null")?.code).toBe("EEXIST");
  });
});

describe("whyUnusable", () => {
  test.each([
    [{ code: "EEXIST" }, "something that is not a folder is already there: EEXIST"],
    [{ code: "SQLITE_FULL" }, "the disk is full: SQLITE_FULL"],
    [{ code: "SQLITE_READONLY_DIRECTORY" }, "toolgate.db or its folder is read-only: SQLITE_READONLY_DIRECTORY"],
    [new Error("odd"), "odd"],
  ])("%p", (e, text) => {
    expect(whyUnusable(e)).toBe(text);
  });
});
