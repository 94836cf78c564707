import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { userStateDir } from "../../src/trust/paths.ts";
import { isRecorded, listRecords, readRecord, removeRecord, writeRecord } from "../../src/trust/store.ts";
import { tempDir } from "../helpers.ts";

describe("the user's state folder", () => {
  test.each([
    [{ XDG_STATE_HOME: "/x/state", HOME: "/home/u" }, "/x/state/toolgate"],
    [{ XDG_STATE_HOME: "relative", HOME: "/home/u" }, "/home/u/.local/state/toolgate"],
    [{ XDG_STATE_HOME: "", HOME: "/home/u" }, "/home/u/.local/state/toolgate"],
    [{ HOME: "rel" }, null],
    [{}, null],
  ])("%o → %s", (env, dir) => {
    expect(userStateDir(env)).toBe(dir);
  });
});

const at = (path: string) => ({ path, real: path, workspace: path.slice(0, path.lastIndexOf("/")) || "/" });

describe("trust records", () => {
  test("a record matches its path and content digest only; trusting again replaces it; revoke removes it", async () => {
    await using d = tempDir();
    writeRecord(d.path, { ...at("/ws/toolgate.json"), digest: "a".repeat(64), trusted_ms: 1 });
    expect(isRecorded(d.path, at("/ws/toolgate.json"), "a".repeat(64))).toBe(true);
    expect(isRecorded(d.path, at("/ws/toolgate.json"), "b".repeat(64))).toBe(false);
    expect(isRecorded(d.path, at("/other/toolgate.json"), "a".repeat(64))).toBe(false);
    writeRecord(d.path, { ...at("/ws/toolgate.json"), digest: "b".repeat(64), trusted_ms: 2 });
    expect(isRecorded(d.path, at("/ws/toolgate.json"), "a".repeat(64))).toBe(false);
    writeRecord(d.path, { ...at("/a/toolgate.json"), digest: "c".repeat(64), trusted_ms: 3 });
    expect(listRecords(d.path).map((r) => r.path)).toEqual(["/a/toolgate.json", "/ws/toolgate.json"]);
    expect(statSync(join(d.path, "trust")).mode & 0o777).toBe(0o700);
    expect(removeRecord(d.path, "/ws/toolgate.json")).toBe(true);
    expect(removeRecord(d.path, "/ws/toolgate.json")).toBe(false);
    expect(readRecord(d.path, "/ws/toolgate.json")).toBeNull();
  });

  test("a record binds the path as found, the real file and the workspace", async () => {
    await using d = tempDir();
    const link = { path: "/h/toolgate.json", real: "/b/toolgate.json", workspace: "/h" };
    writeRecord(d.path, { ...at("/b/toolgate.json"), digest: "a".repeat(64), trusted_ms: 1 });
    expect(isRecorded(d.path, link, "a".repeat(64))).toBe(false);
    writeRecord(d.path, { ...link, digest: "a".repeat(64), trusted_ms: 2 });
    expect(isRecorded(d.path, link, "a".repeat(64))).toBe(true);
    expect(isRecorded(d.path, { ...link, real: "/c/toolgate.json" }, "a".repeat(64))).toBe(false);
    expect(isRecorded(d.path, { ...link, workspace: "/" }, "a".repeat(64))).toBe(false);
  });

  test("no folder: nothing is recorded, nothing is listed", async () => {
    await using d = tempDir();
    expect(isRecorded(join(d.path, "none"), at("/x"), "a")).toBe(false);
    expect(listRecords(join(d.path, "none"))).toEqual([]);
  });
});
