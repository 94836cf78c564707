import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { userApprovals } from "../../src/state/approvals.ts";
import { tempDir } from "../helpers.ts";

describe("remembered approvals live in the user's state folder", () => {
  test("keyed by the workspace's real path, the tool and its digest", async () => {
    await using user = tempDir();
    await using ws = tempDir();
    mkdirSync(join(ws.path, "a"));
    mkdirSync(join(ws.path, "b"));
    symlinkSync(join(ws.path, "a"), join(ws.path, "link-to-a"));
    const dir = join(user.path, "toolgate");
    const a = userApprovals(dir, join(ws.path, "a"));
    expect(a.isRemembered("bash", "d1")).toBe(false);
    expect(existsSync(dir)).toBe(false); // looking makes nothing
    expect(a.remember("bash", "d1", 1)).toBe(true);
    expect(a.isRemembered("bash", "d1")).toBe(true);
    expect(a.isRemembered("bash", "d2")).toBe(false);
    expect(a.isRemembered("file_read", "d1")).toBe(false);
    expect(userApprovals(dir, join(ws.path, "b")).isRemembered("bash", "d1")).toBe(false);
    expect(userApprovals(dir, join(ws.path, "link-to-a")).isRemembered("bash", "d1")).toBe(true);
  });

  test("without a user state folder nothing is remembered", () => {
    const m = userApprovals(null, "/ws");
    expect(m.remember("bash", "d", 1)).toBe(false);
    expect(m.isRemembered("bash", "d")).toBe(false);
  });
});
