// Prompts of a forwarded call, on a real pseudo-terminal (util-linux `script`): the session asks
// through its client, which asks at its own terminal; the answers give what a cold call gives.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { onTty, run, tempDir } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "las", "server.ts");
// The user's state folder lies outside the workspace (a session refuses to listen inside it).
const users = new Set<string>();
afterAll(() => {
  for (const p of users) rmSync(p, { recursive: true, force: true });
});
const env = (ws: string) => (users.add(`${ws}.user`), { HOME: ws, XDG_STATE_HOME: join(`${ws}.user`, "state") });

/** What a cold call asks, as a session asks it: yes or no for this call only ("A" is not offered over the socket). */
const overSocket = (text: string) =>
  text
    .replace(
      /Allow\? \[y\/n\/A\] \(y = yes, allow; n = no, deny; A = allow all \w+ permissions\)/g,
      "Allow? [y/n] (y = yes, allow this call; n = no, deny)",
    )
    .replace(
      "Approve? [y/n/A] (y = yes, this call; n = no; A = always, for this digest)",
      "Approve? [y/n] (y = yes, this call; n = no)",
    );

async function session(ws: string) {
  const r = await run(["session", "start", "--idle-secs", "120"], { cwd: ws, env: env(ws) });
  expect(r.code).toBe(0);
  return { [Symbol.asyncDispose]: async () => void (await run(["session", "stop"], { cwd: ws, env: env(ws) })) };
}

const calls = async (ws: string) =>
  JSON.parse((await run(["session", "status", "--json"], { cwd: ws, env: env(ws) })).stdout).calls as number;
const rows = async (ws: string) =>
  (await run(["log", "--json"], { cwd: ws, env: env(ws) })).stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((r) => r.tool === "file_read");

describe("a forwarded call that needs a yes", () => {
  test.each([
    ["y then y: read granted and approved", "y\ny\n", 0],
    ["y then n: approval denied", "y\nn\n", 4],
    ["n: read denied, the flag named", "n\n", 4],
  ])("%s — the same terminal text, stdout and exit code as cold", async (_name, answers, code) => {
    await using dir = tempDir();
    const ws = dir.path;
    writeFileSync(join(ws, "a.txt"), "hello\n");
    const argv = ["call", "file_read", '{"path":"a.txt"}'];
    const cold = await onTty(ws, [...argv, "--no-session"], answers, env(ws));
    await using _s = await session(ws);
    const warm = await onTty(ws, argv, answers, env(ws));
    expect(warm).toEqual({ ...cold, out: overSocket(cold.out) });
    expect(warm.out).not.toContain("[y/n/A]");
    expect(cold.code).toBe(code);
    expect(cold.out).toContain(`toolgate requests read access to "${join(ws, "a.txt")}"`);
    // It was the session that served it (and journaled it so), asking through the client.
    expect(await calls(ws)).toBe(1);
    const [coldRow, warmRow] = await rows(ws);
    expect([coldRow.status, warmRow.status]).toEqual([
      code === 0 ? "success" : "failed",
      code === 0 ? "success" : "failed",
    ]);
    expect(JSON.parse(warmRow.detail ?? "{}").via).toBe("session");
  });

  test("with CI=true on a terminal nobody is asked: the refusal names the flag, as cold", async () => {
    await using dir = tempDir();
    const ws = dir.path;
    writeFileSync(join(ws, "a.txt"), "hello\n");
    const argv = ["call", "file_read", '{"path":"a.txt"}', "--approve", "file_read"];
    const cold = await onTty(ws, [...argv, "--no-session"], "y\n", { ...env(ws), CI: "true" });
    await using _s = await session(ws);
    const warm = await onTty(ws, argv, "y\n", { ...env(ws), CI: "true" });
    expect(warm).toEqual(cold);
    expect(warm.code).toBe(4);
    expect(warm.out).not.toContain("Allow?");
    expect(warm.out).toContain("--allow-read");
    expect(await calls(ws)).toBe(1);
  });

  test("an MCP server's start is asked at the client's terminal, once, and the session keeps the server", async () => {
    await using dir = tempDir();
    const ws = dir.path;
    writeFileSync(
      join(ws, "toolgate.json"),
      JSON.stringify({ mcpServers: { a: { command: process.execPath, args: [FIXTURE] } } }),
    );
    expect((await run(["tools", "--allow-run"], { cwd: ws, env: env(ws) })).code).toBe(0);
    const argv = ["call", "a__echo__echo", '{"message":"hi"}', "--approve", "all"];
    const cold = await onTty(ws, [...argv, "--no-session"], "y\n", env(ws));
    await using _s = await session(ws);
    const warm = await onTty(ws, argv, "y\n", env(ws));
    expect(warm).toEqual({ ...cold, out: overSocket(cold.out) });
    expect(warm.code).toBe(0);
    expect(warm.out.match(/Allow\?/g)?.length).toBe(1);
    expect(warm.out).toContain('"text":"hi"');
    expect(JSON.parse((await run(["session", "status", "--json"], { cwd: ws, env: env(ws) })).stdout).servers).toEqual([
      { name: "a", pid: expect.any(Number) },
    ]);
  });
  test('"A" is not an answer over the socket: the approval is not remembered, and the next call is asked again', async () => {
    await using dir = tempDir();
    const ws = dir.path;
    writeFileSync(join(ws, "a.txt"), "hello\n");
    const argv = ["call", "file_read", '{"path":"a.txt"}', "--allow-read"];
    await using _s = await session(ws);
    // Three times "A": not among the choices, so no answer, and no is the answer.
    const warm = await onTty(ws, argv, "A\nA\nA\n", env(ws));
    expect(warm.code).toBe(4);
    expect(warm.out).toContain("Unrecognized option. Approve? [y/n] > ");
    expect(warm.out).toContain("❌ Not approved: file_read.");
    expect(existsSync(join(`${ws}.user`, "state", "toolgate", "approvals.db"))).toBe(false);
    // Cold, nothing was remembered either: it is asked, and the refusal stands without a yes.
    const cold = await run([...argv, "--no-session", "--no-prompt"], { cwd: ws, env: env(ws) });
    expect({ code: cold.code, error: JSON.parse(cold.stdout).error_code }).toEqual({
      code: 4,
      error: "approval.required",
    });
    // A yes counts for that call only.
    expect((await onTty(ws, argv, "y\n", env(ws))).code).toBe(0);
    expect((await run([...argv, "--no-prompt"], { cwd: ws, env: env(ws) })).code).toBe(4);
  });
});
