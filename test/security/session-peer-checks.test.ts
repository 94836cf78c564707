// The warm session's peer checks cannot be switched off from the environment. They read the
// connecting (and the listening) process's credentials with getsockopt(2) through bun:ffi, which
// needs the JIT: with BUN_JSC_useJIT=0 the reader cannot load. Before, the session then listened
// with no peer check at all (any process reaching the socket was served) and a client forwarded
// to whatever listened. Now both fail closed on Linux: no session starts (exit 5, saying why),
// and a client that cannot check the listener runs its call cold, as itself.
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { run, tempDir } from "../helpers.ts";

const users = new Set<string>();
afterAll(() => users.forEach((p) => rmSync(p, { recursive: true, force: true })));
// The user's state folder (where the socket lives) outside the workspace.
const env = (ws: string, extra: Record<string, string> = {}) => (users.add(`${ws}.user`), { HOME: ws, XDG_STATE_HOME: join(`${ws}.user`, "state"), ...extra });
const JIT_OFF = { BUN_JSC_useJIT: "0" };

test("with the JIT off, `session start` refuses (exit 5, the reason and the way out) and nothing listens", async () => {
  await using dir = tempDir();
  const ws = dir.path;
  const r = await run(["session", "start", "--idle-secs", "60"], { cwd: ws, env: env(ws, JIT_OFF) });
  // Whatever this test finds, no session of its outlives it.
  await using _ = { [Symbol.asyncDispose]: async () => void (await run(["session", "stop"], { cwd: ws, env: env(ws) })) };
  expect(r.code).toBe(5);
  expect(r.stderr).toContain("a session cannot start: peer credentials cannot be read here");
  expect(r.stderr).toContain("BUN_JSC_useJIT=0");
  expect(r.stderr).toContain("calls run cold without a session");
  // Nothing was left listening: a call runs cold, and there is no session to ask.
  const status = await run(["session", "status", "--json"], { cwd: ws, env: env(ws) });
  expect(status.code).not.toBe(0);
  const call = await run(["call", "plan", "{}"], { cwd: ws, env: env(ws) });
  expect(call.code).toBe(0);
});

test("a client with the JIT off does not forward to a running session: it runs the call cold", async () => {
  await using dir = tempDir();
  const ws = dir.path;
  expect((await run(["session", "start", "--idle-secs", "60"], { cwd: ws, env: env(ws) })).code).toBe(0);
  try {
    const calls = async () => JSON.parse((await run(["session", "status", "--json"], { cwd: ws, env: env(ws) })).stdout).calls as number;
    // The control: with the JIT on, the call is forwarded (the session counts it).
    expect((await run(["call", "plan", "{}"], { cwd: ws, env: env(ws) })).code).toBe(0);
    expect(await calls()).toBe(1);
    const blind = await run(["call", "plan", "{}"], { cwd: ws, env: env(ws, JIT_OFF) });
    expect(blind.code).toBe(0);
    expect(JSON.parse(blind.stdout).status).toBe("success");
    expect(await calls()).toBe(1);
  } finally {
    await run(["session", "stop"], { cwd: ws, env: env(ws) });
  }
});
