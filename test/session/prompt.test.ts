// Prompts of a forwarded call, on a real pseudo-terminal (util-linux `script`): the session asks
// through its client, which asks at its own terminal; the answers give what a cold call gives.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { onTty, run, tempDir } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "las", "server.ts");
const env = (ws: string) => ({ HOME: ws, XDG_STATE_HOME: join(ws, ".user-state") });

async function session(ws: string) {
  const r = await run(["session", "start", "--idle-secs", "120"], { cwd: ws, env: env(ws) });
  expect(r.code).toBe(0);
  return { [Symbol.asyncDispose]: async () => void (await run(["session", "stop"], { cwd: ws, env: env(ws) })) };
}

const calls = async (ws: string) => JSON.parse((await run(["session", "status", "--json"], { cwd: ws, env: env(ws) })).stdout).calls as number;
const rows = async (ws: string) =>
  (await run(["log", "--json"], { cwd: ws, env: env(ws) })).stdout.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.tool === "file_read");

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
    expect(warm).toEqual(cold);
    expect(cold.code).toBe(code);
    expect(cold.out).toContain(`toolgate requests read access to "${join(ws, "a.txt")}"`);
    // It was the session that served it (and journaled it so), asking through the client.
    expect(await calls(ws)).toBe(1);
    const [coldRow, warmRow] = await rows(ws);
    expect([coldRow.status, warmRow.status]).toEqual([code === 0 ? "success" : "failed", code === 0 ? "success" : "failed"]);
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
    writeFileSync(join(ws, "toolgate.json"), JSON.stringify({ mcpServers: { a: { command: process.execPath, args: [FIXTURE] } } }));
    expect((await run(["tools", "--allow-run"], { cwd: ws, env: env(ws) })).code).toBe(0);
    const argv = ["call", "a__echo__echo", '{"message":"hi"}', "--approve", "all"];
    const cold = await onTty(ws, [...argv, "--no-session"], "y\n", env(ws));
    await using _s = await session(ws);
    const warm = await onTty(ws, argv, "y\n", env(ws));
    expect(warm).toEqual(cold);
    expect(warm.code).toBe(0);
    expect(warm.out.match(/Allow\?/g)?.length).toBe(1);
    expect(warm.out).toContain('"text":"hi"');
    expect(JSON.parse((await run(["session", "status", "--json"], { cwd: ws, env: env(ws) })).stdout).servers).toEqual([{ name: "a", pid: expect.any(Number) }]);
  });
});
