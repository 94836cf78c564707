// Against the fixture Las, a real MCP stdio server: connect through the launcher, the protocol
// pin, calls, a crash mid-call (transport), a hang (deadline), and the shutdown order.
// Full suite only: a real MCP server as a child; a hang waits out the deadline, a child that stays its grace.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { StreamRedactor } from "../../src/boundary/redact.ts";
import { childEnv } from "../../src/launcher/env.ts";
import { connectTarget, type Target } from "../../src/mcp/connect.ts";
import { tempDir } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "las", "server.ts");
const opts = {
  pin: true,
  connectTimeoutMs: 10_000,
  requestTimeoutMs: 10_000,
  version: "test",
  redactor: (s: readonly string[]) => new StreamRedactor(s),
};

function target(args: string[] = [], values: Record<string, string> = {}): Target {
  const env = childEnv({ parent: {}, values });
  if (!env.ok) throw new Error(env.refusal.message);
  return {
    kind: "stdio",
    name: "las",
    argv: [process.execPath, FIXTURE, ...args],
    env: env.value,
    cwd: import.meta.dir,
  };
}

const alive = (pid: number) =>
  existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z");

describe("MCP over the launcher's pipes", () => {
  test("lists, calls, and pins the protocol; noise on stdout is skipped", async () => {
    const noise: string[] = [];
    const c = await connectTarget(target(["--noise"], { LAS_ONLY: "echo,finance" }), {
      ...opts,
      onNoise: (_s, l) => noise.push(l),
    });
    try {
      expect(c.session.negotiated).toBe("2024-11-05");
      expect(c.tools.map((t) => t.name)).toContain("finance__balance");
      expect(c.tools.map((t) => t.name)).not.toContain("skarbiec__whoami");
      expect(await c.session.callTool("echo__echo", { message: "hi" }, { timeoutMs: 5000 })).toEqual({
        ok: true,
        result: { content: [{ type: "text", text: "hi" }] },
      });
      expect(noise.length).toBeGreaterThan(0);
    } finally {
      await c.close(1000);
    }
  });

  test("another negotiated version is visible to the caller", async () => {
    const c = await connectTarget(target(["--protocol=2025-06-18"]), opts);
    try {
      expect(c.session.negotiated).toBe("2025-06-18");
    } finally {
      await c.close(1000);
    }
  });

  test("a crash mid-call is a transport failure; a hang hits the deadline", async () => {
    const c = await connectTarget(target(), opts);
    try {
      const hang = await c.session.callTool("echo__hang", {}, { timeoutMs: 200 });
      expect(hang).toMatchObject({ ok: false, kind: "deadline" });
      const crash = await c.session.callTool("echo__crash", {}, { timeoutMs: 5000 });
      expect(crash).toMatchObject({ ok: false, kind: "transport" });
    } finally {
      await c.close(1000);
    }
  });

  test("shutdown closes stdin, waits the grace, then kills a child that stays; no orphan", async () => {
    await using dir = tempDir();
    const pidFile = join(dir.path, "pid");
    const c = await connectTarget(target(["--linger", "--ignore-term", `--pid-out=${pidFile}`]), opts);
    const pid = Number(readFileSync(pidFile, "utf8"));
    expect(alive(pid)).toBe(true);
    const t0 = performance.now();
    const r = await c.child!.shutdown(300);
    const took = performance.now() - t0;
    expect(r.killed).toBe(true);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(alive(pid)).toBe(false);
  });

  test("a child that leaves when stdin closes is not killed", async () => {
    const c = await connectTarget(target(), opts);
    expect((await c.child!.shutdown(5000)).killed).toBe(false);
  });

  // The failed connect's shutdown is any close's: stdin closed, the grace, then the tree killed.
  test("a failed connect waits the grace for a child that stays, then kills it; no orphan", async () => {
    await using dir = tempDir();
    const pidFile = join(dir.path, "pid");
    const t0 = performance.now();
    // Unpinned, the SDK refuses a protocol version it does not know: the connect fails after the child started.
    const failed = await connectTarget(
      target(["--protocol=1999-01-01", "--linger", "--ignore-term", `--pid-out=${pidFile}`]),
      { ...opts, pin: false },
    ).then(
      () => null,
      (e: Error) => e.message,
    );
    const took = performance.now() - t0;
    expect(failed).toContain("1999-01-01");
    expect(took).toBeGreaterThanOrEqual(990);
    expect(alive(Number(readFileSync(pidFile, "utf8")))).toBe(false);
  });

  test("a child that dies at start: the failure carries its stderr", async () => {
    const env = childEnv({ parent: {} });
    if (!env.ok) throw new Error("env");
    const t: Target = {
      kind: "stdio",
      name: "x",
      argv: ["/bin/sh", "-c", "echo 'las: cannot find release manifest' >&2; exit 7"],
      env: env.value,
      cwd: "/",
    };
    await expect(connectTarget(t, { ...opts, connectTimeoutMs: 3000 })).rejects.toThrow("cannot find release manifest");
  });
});
