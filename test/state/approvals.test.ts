import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { forgetApprovals, rememberedApprovals, userApprovals } from "../../src/state/approvals.ts";
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

describe("listing and forgetting them (toolgate approvals)", () => {
  test("listed by workspace (any path to it) or all; forgotten by tool, every digest, this workspace only", async () => {
    await using user = tempDir();
    await using ws = tempDir();
    mkdirSync(join(ws.path, "a"));
    mkdirSync(join(ws.path, "b"));
    symlinkSync(join(ws.path, "a"), join(ws.path, "link-to-a"));
    const dir = join(user.path, "toolgate");
    expect(rememberedApprovals(dir, join(ws.path, "a"))).toEqual([]);
    expect(existsSync(dir)).toBe(false); // looking makes nothing
    const a = userApprovals(dir, join(ws.path, "a"));
    a.remember("bash", "d1", 1);
    a.remember("bash", "d2", 2);
    a.remember("file_read", "d3", 3);
    userApprovals(dir, join(ws.path, "b")).remember("bash", "d1", 4);
    const real = (p: string) => realpathSync(join(ws.path, p));
    expect(rememberedApprovals(dir, join(ws.path, "link-to-a")).map((r) => [r.tool, r.digest])).toEqual([["bash", "d1"], ["bash", "d2"], ["file_read", "d3"]]);
    expect(rememberedApprovals(dir, null).map((r) => [r.workspace, r.tool, r.digest, r.granted_ms])).toEqual([
      [real("a"), "bash", "d1", 1], [real("a"), "bash", "d2", 2], [real("a"), "file_read", "d3", 3], [real("b"), "bash", "d1", 4],
    ]);
    expect(forgetApprovals(dir, join(ws.path, "a"), (t) => t === "bash").map((r) => r.digest)).toEqual(["d1", "d2"]);
    expect(a.isRemembered("bash", "d1")).toBe(false);
    expect(a.isRemembered("file_read", "d3")).toBe(true);
    expect(userApprovals(dir, join(ws.path, "b")).isRemembered("bash", "d1")).toBe(true);
    expect(forgetApprovals(dir, join(ws.path, "a"), (t) => t === "nope")).toEqual([]);
  });
});
