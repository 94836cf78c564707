// The warm session's peer checks cannot be switched off from the environment. They read the
// connecting (and the listening) process's credentials with getsockopt(2) through bun:ffi, which
// needs the JIT. BUN_JSC_useJIT=0 once turned it off: the session then listened with no peer check
// and a client forwarded to whatever listened (both now fail closed where the reader cannot load,
// peerChecksUnavailable). Bun's engine options are no longer the caller's (bun-switches.ts): the
// variable never reaches toolgate, so the reader loads, the session starts with its checks, and a
// client checks the listener before it forwards.
import { afterAll, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { peerChecksUnavailable } from "../../src/session/peer.ts";
import { run, tempDir } from "../helpers.ts";

const users = new Set<string>();
afterAll(() => {
  for (const p of users) rmSync(p, { recursive: true, force: true });
});
// The user's state folder (where the socket lives) outside the workspace.
const env = (ws: string, extra: Record<string, string> = {}) => (
  users.add(`${ws}.user`), { HOME: ws, XDG_STATE_HOME: join(`${ws}.user`, "state"), ...extra }
);
const JIT_OFF = { BUN_JSC_useJIT: "0" };

test("with BUN_JSC_useJIT=0 in the environment, `session start` starts with its peer checks: the variable never reaches it", async () => {
  await using dir = tempDir();
  const ws = dir.path;
  const r = await run(["session", "start", "--idle-secs", "60"], { cwd: ws, env: env(ws, JIT_OFF) });
  // Whatever this test finds, no session of its outlives it.
  await using _ = {
    [Symbol.asyncDispose]: async () => void (await run(["session", "stop"], { cwd: ws, env: env(ws) })),
  };
  expect([r.code, r.stderr]).toEqual([0, expect.stringContaining("session started")]);
  const { pid } = JSON.parse((await run(["session", "status", "--json"], { cwd: ws, env: env(ws) })).stdout) as {
    pid: number;
  };
  expect(
    readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .filter((kv) => kv.startsWith("BUN_JSC_")),
  ).toEqual([]);
});

test("a client with BUN_JSC_useJIT=0 checks the listener as any other and forwards", async () => {
  await using dir = tempDir();
  const ws = dir.path;
  expect((await run(["session", "start", "--idle-secs", "60"], { cwd: ws, env: env(ws) })).code).toBe(0);
  try {
    const calls = async () =>
      JSON.parse((await run(["session", "status", "--json"], { cwd: ws, env: env(ws) })).stdout).calls as number;
    expect((await run(["call", "plan", "{}"], { cwd: ws, env: env(ws) })).code).toBe(0);
    expect(await calls()).toBe(1);
    const r = await run(["call", "plan", "{}"], { cwd: ws, env: env(ws, JIT_OFF) });
    expect([r.code, JSON.parse(r.stdout).status]).toEqual([0, "success"]);
    expect(await calls()).toBe(2);
  } finally {
    await run(["session", "stop"], { cwd: ws, env: env(ws) });
  }
});

test("where the reader cannot load on Linux, the checks fail closed and say why", () => {
  expect(peerChecksUnavailable(null)).toContain("peer credentials cannot be read here");
  expect(peerChecksUnavailable(() => null)).toBeNull();
});
