import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, realpathSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { forgetApprovals, rememberedApprovals, userApprovals } from "../../src/state/approvals.ts";
import { USER_MIGRATIONS } from "../../src/state/user-migrations.ts";
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

  test("and by the caller that answered: a served caller's is its own, the user's own is no caller's", async () => {
    await using user = tempDir();
    await using ws = tempDir();
    const dir = join(user.path, "toolgate");
    const m = userApprovals(dir, ws.path);
    const alice = { sub: "alice", client_id: "team-app" };
    expect(m.remember("bash", "d1", 1, alice)).toBe(true);
    expect(m.isRemembered("bash", "d1", alice)).toBe(true);
    expect(m.isRemembered("bash", "d1", { sub: "alice", client_id: "other-app" })).toBe(false);
    expect(m.isRemembered("bash", "d1", { sub: "bob", client_id: "team-app" })).toBe(false);
    expect(m.isRemembered("bash", "d1")).toBe(false);
    m.remember("file_read", "d2", 2);
    expect(m.isRemembered("file_read", "d2")).toBe(true);
    expect(m.isRemembered("file_read", "d2", alice)).toBe(false);
    // A machine whose subject is its client, and one with no subject, are callers too.
    m.remember("bash", "d1", 3, { sub: null, client_id: "ci-bot" });
    expect(m.isRemembered("bash", "d1", { sub: null, client_id: "ci-bot" })).toBe(true);
    expect(m.isRemembered("bash", "d1", { sub: "ci-bot", client_id: "ci-bot" })).toBe(false);
    expect(rememberedApprovals(dir, ws.path).map((r) => [r.tool, r.caller_sub, r.caller_client])).toEqual([
      ["bash", "alice", "team-app"],
      ["bash", null, "ci-bot"],
      ["file_read", undefined, undefined],
    ]);
    // Forgetting a tool forgets every caller's.
    expect(forgetApprovals(dir, ws.path, (t) => t === "bash")).toHaveLength(2);
    expect([m.isRemembered("bash", "d1", alice), m.isRemembered("file_read", "d2")]).toEqual([false, true]);
  });

  test("a state file from before callers opens: its approvals are the user's own, still remembered", async () => {
    await using user = tempDir();
    await using ws = tempDir();
    const dir = join(user.path, "toolgate");
    mkdirSync(dir);
    // The file as the first schema left it, with one remembered approval.
    const old = new Database(join(dir, "approvals.db"), { create: true, strict: true });
    old.run(USER_MIGRATIONS[0]!);
    old.run("PRAGMA user_version = 1");
    old
      .query("INSERT INTO approvals (workspace, tool, digest, granted_ms) VALUES ($ws, 'bash', 'd1', 7)")
      .run({ ws: realpathSync(ws.path) });
    old.close();
    const m = userApprovals(dir, ws.path);
    expect(m.isRemembered("bash", "d1")).toBe(true);
    expect(m.isRemembered("bash", "d1", { sub: "alice", client_id: "team-app" })).toBe(false);
    expect(rememberedApprovals(dir, ws.path)).toEqual([
      { workspace: realpathSync(ws.path), tool: "bash", digest: "d1", granted_ms: 7 },
    ]);
    const db = new Database(join(dir, "approvals.db"));
    expect((db.query("PRAGMA user_version").get() as { user_version: number }).user_version).toBe(
      USER_MIGRATIONS.length,
    );
    db.close();
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
    expect(rememberedApprovals(dir, join(ws.path, "link-to-a")).map((r) => [r.tool, r.digest])).toEqual([
      ["bash", "d1"],
      ["bash", "d2"],
      ["file_read", "d3"],
    ]);
    expect(rememberedApprovals(dir, null).map((r) => [r.workspace, r.tool, r.digest, r.granted_ms])).toEqual([
      [real("a"), "bash", "d1", 1],
      [real("a"), "bash", "d2", 2],
      [real("a"), "file_read", "d3", 3],
      [real("b"), "bash", "d1", 4],
    ]);
    expect(forgetApprovals(dir, join(ws.path, "a"), (t) => t === "bash").map((r) => r.digest)).toEqual(["d1", "d2"]);
    expect(a.isRemembered("bash", "d1")).toBe(false);
    expect(a.isRemembered("file_read", "d3")).toBe(true);
    expect(userApprovals(dir, join(ws.path, "b")).isRemembered("bash", "d1")).toBe(true);
    expect(forgetApprovals(dir, join(ws.path, "a"), (t) => t === "nope")).toEqual([]);
  });
});
