// End to end: `toolgate approvals list` and `revoke TOOL` on what an "A" at the prompt remembered
// (the user's state folder): each row's state against the catalog now, revoked ones asked again.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { userApprovals } from "../../src/state/approvals.ts";
import { onTerminal, onTty, run, tempDir } from "../helpers.ts";

const READ = ["call", "file_read", '{"path":"README.md"}', "--allow-read"];
const lines = (out: string) =>
  out
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

async function setup() {
  const ws = tempDir();
  const user = tempDir();
  writeFileSync(join(ws.path, "README.md"), "one\n");
  const env = { XDG_STATE_HOME: user.path };
  return {
    ws: ws.path,
    user: user.path,
    env,
    [Symbol.asyncDispose]: async () => (await ws[Symbol.asyncDispose](), await user[Symbol.asyncDispose]()),
  };
}

describe("toolgate approvals", () => {
  test("an A at the prompt is listed; revoked, the tool is asked again", async () => {
    await using s = await setup();
    const asked = await onTty(s.ws, READ, "A\n", s.env);
    expect(asked.out).toContain("Approved file_read");
    // Remembered: no prompt now, even where nobody can be asked.
    expect((await run(READ, { cwd: s.ws, env: s.env })).code).toBe(0);
    const digest = JSON.parse((await run(["tools", "file_read", "--json"], { cwd: s.ws })).stdout).digest;
    const listed = lines((await run(["approvals", "list"], { cwd: s.ws, env: s.env })).stdout);
    expect(listed.map(({ granted_ms: _, ...r }) => r)).toEqual([
      { workspace: s.ws, tool: "file_read", digest, state: "current" },
    ]);
    expect((await run(["approvals"], { cwd: s.ws, env: s.env })).stdout).toBe(
      (await run(["approvals", "list"], { cwd: s.ws, env: s.env })).stdout,
    );
    const revoked = await run(["approvals", "revoke", "file_read"], { cwd: s.ws, env: s.env });
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual({
      workspace: s.ws,
      tool: "file_read",
      revoked: [{ tool: "file_read", digest }],
    });
    expect(revoked.stderr).toBe(`toolgate: forgot 1 remembered approval in ${s.ws}: file_read; it is asked again\n`);
    expect((await run(["approvals", "list"], { cwd: s.ws, env: s.env })).stdout).toBe("");
    const again = await run(READ, { cwd: s.ws, env: s.env });
    expect([again.code, JSON.parse(again.stdout).error_code]).toEqual([4, "approval.required"]);
  });

  test("each row's state: current, changed (the tool is not what was approved), absent; --all: every workspace", async () => {
    await using s = await setup();
    await using other = tempDir();
    const digest = JSON.parse((await run(["tools", "file_read", "--json"], { cwd: s.ws })).stdout).digest;
    const mine = userApprovals(join(s.user, "toolgate"), s.ws);
    mine.remember("file_read", digest, 1);
    mine.remember("bash", "0".repeat(64), 2);
    mine.remember("gone_tool", "1".repeat(64), 3);
    userApprovals(join(s.user, "toolgate"), other.path).remember("file_read", digest, 4);
    const here = lines((await run(["approvals", "list"], { cwd: s.ws, env: s.env })).stdout);
    expect(here.map((r) => [r.tool, r.state])).toEqual([
      ["bash", "changed"],
      ["file_read", "current"],
      ["gone_tool", "absent"],
    ]);
    const all = lines((await run(["approvals", "list", "--all"], { cwd: s.ws, env: s.env })).stdout);
    // Another workspace's catalog is not this one's: its rows have no state.
    expect(all.filter((r) => r.workspace === s.ws).map((r) => [r.tool, r.state])).toEqual([
      ["bash", "changed"],
      ["file_read", "current"],
      ["gone_tool", "absent"],
    ]);
    expect(all.filter((r) => r.workspace === other.path).map((r) => [r.tool, r.state])).toEqual([["file_read", null]]);
    // On a terminal: a table, and a note on the changed one.
    const t = await onTerminal(["approvals", "list"], 100, s.ws, s.env);
    expect(t.lines[0]).toMatch(/^TOOL +DIGEST +GRANTED +STATE$/);
    expect(t.lines.join("\n")).toContain("changed: the tool is not what was approved, so it is asked again");
    // A glob revokes several; this workspace only.
    const gone = await run(["approvals", "revoke", "*"], { cwd: s.ws, env: s.env });
    expect(JSON.parse(gone.stdout).revoked.map((r: { tool: string }) => r.tool)).toEqual([
      "bash",
      "file_read",
      "gone_tool",
    ]);
    expect(
      lines((await run(["approvals", "list", "--all"], { cwd: s.ws, env: s.env })).stdout).map((r) => r.workspace),
    ).toEqual([other.path]);
  });

  test("a served caller's approval is listed with its caller (a CALLER column on a terminal, blank for your own); revoke forgets every caller's", async () => {
    await using s = await setup();
    const digest = JSON.parse((await run(["tools", "file_read", "--json"], { cwd: s.ws })).stdout).digest;
    const mine = userApprovals(join(s.user, "toolgate"), s.ws);
    mine.remember("file_read", digest, 2, { sub: null, client_id: "ci-bot" });
    // A served caller's approval does not approve your own call; yours does.
    expect((await run(READ, { cwd: s.ws, env: s.env })).code).toBe(4);
    mine.remember("file_read", digest, 1);
    expect((await run(READ, { cwd: s.ws, env: s.env })).code).toBe(0);
    const listed = lines((await run(["approvals", "list"], { cwd: s.ws, env: s.env })).stdout);
    expect(listed.map((r) => [r.caller_sub, r.caller_client, r.state])).toEqual([
      [undefined, undefined, "current"],
      [null, "ci-bot", "current"],
    ]);
    const t = await onTerminal(["approvals", "list"], 120, s.ws, s.env);
    expect(t.lines.slice(0, 3).map((l) => l.split(/ {2,}/).slice(0, 2))).toEqual([
      ["TOOL", "CALLER"],
      ["file_read", digest.slice(0, 12)],
      ["file_read", "ci-bot"],
    ]);
    mine.remember("bash", "0".repeat(64), 3, { sub: "alice", client_id: "team-app" });
    const gone = await run(["approvals", "revoke", "file_read"], { cwd: s.ws, env: s.env });
    expect(JSON.parse(gone.stdout).revoked).toEqual([
      { tool: "file_read", digest },
      { tool: "file_read", digest, caller_sub: null, caller_client: "ci-bot" },
    ]);
    expect(
      lines((await run(["approvals", "list"], { cwd: s.ws, env: s.env })).stdout).map((r) => [r.tool, r.caller_sub]),
    ).toEqual([["bash", "alice"]]);
  });

  test("revoking what is not remembered changes nothing and says what is", async () => {
    await using s = await setup();
    userApprovals(join(s.user, "toolgate"), s.ws).remember("file_read", "d", 1);
    const r = await run(["approvals", "revoke", "fil_read"], { cwd: s.ws, env: s.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).revoked).toEqual([]);
    expect(r.stderr).toBe(`toolgate: no approval of "fil_read" is remembered in ${s.ws} (remembered: file_read)\n`);
  });

  test.each([
    [["nope"], 'unknown approvals action "nope"'],
    [["revoke"], "approvals revoke needs the tool"],
    [["list", "x"], 'unexpected argument "x"'],
    [["revoke", "a", "b"], 'unexpected argument "b"'],
    [["revoke", "a", "--all"], "--all goes with list"],
  ])("%p is a usage error (exit 2)", async (args, message) => {
    await using s = await setup();
    const r = await run(["approvals", ...args], { cwd: s.ws, env: s.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  test("a user state folder inside the workspace is refused (exit 5): its records are never read", async () => {
    await using s = await setup();
    const r = await run(["approvals", "list"], { cwd: s.ws, env: { XDG_STATE_HOME: join(s.ws, "state") } });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("lies inside the workspace");
  });
});
