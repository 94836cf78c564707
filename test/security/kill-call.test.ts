// `kill -9` of `toolgate call` left its command running (sandbox off). Now the
// command starts under toolgate's guardian (src/launcher/guard.ts): when toolgate dies, however,
// the command, its children and an orphan that left their session (`setsid`) all end promptly.
// As root and as nobody; every wait is on a condition, bounded.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gone, pidsIn, waitFor } from "../launcher/support.ts";
import { BIN, json, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

// The command writes its own pid, two children's, and an orphan's that left the session; then waits.
const COMMAND = [
  "echo $$ >> pids",
  "sleep 3001 & echo $! >> pids",
  "bash -c 'sleep 3002' & echo $! >> pids",
  `(setsid bash -c 'echo $$ >> pids; exec sleep 3003' </dev/null >/dev/null 2>&1 &)`,
  "wait",
].join("\n");
const WHO = ["root", "nobody"] as const;

describe("kill -9 of toolgate call (sandbox off)", () => {
  test.each(WHO)("as %s: the command, its children and a setsid orphan end promptly", async (who) => {
    await using dir = tempDir();
    await using bin = tempDir("toolgate-bin-");
    const ws = dir.path;
    let argv = [BIN];
    if (who === "nobody") {
      // A copy nobody can run; the workspace nobody's.
      chmodSync(bin.path, 0o755);
      copyFileSync(BIN, join(bin.path, "toolgate"));
      chmodSync(join(bin.path, "toolgate"), 0o755);
      chmodSync(ws, 0o755);
      chownSync(ws, 65534, 65534);
      argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", join(bin.path, "toolgate")];
    }
    const call = Bun.spawn(
      [...argv, "call", "bash", JSON.stringify({ command: COMMAND }), "--allow-run=bash", "--approve", "bash"],
      {
        cwd: ws,
        env: { PATH: "/usr/bin:/bin", HOME: ws, CI: "true" },
        stdout: "ignore",
        stderr: "ignore",
      },
    );
    const pids = await pidsIn(join(ws, "pids"), 4);
    try {
      expect(pids.every((p) => !gone(p))).toBe(true);
      // setpriv execs: the pid spawned is toolgate's own.
      call.kill("SIGKILL");
      await call.exited;
      await waitFor("every process of the call to be gone", () => pids.every(gone), 3_000);
    } finally {
      for (const p of pids) if (!gone(p)) process.kill(p, "SIGKILL");
    }
  });
});

test("a command the guardian cannot start is still a spawn failure naming it (an authored tool's missing interpreter)", async () => {
  await using ws = tempDir();
  mkdirSync(join(ws.path, "tools", "broke"), { recursive: true });
  const manifest = {
    name: "broke",
    description: "fixture",
    input_schema: { type: "object", properties: {}, additionalProperties: false },
    effect: "read",
    approval: "required",
  };
  writeFileSync(join(ws.path, "tools", "broke", "tool.json"), JSON.stringify(manifest));
  writeFileSync(join(ws.path, "tools", "broke", "run"), "#!/no/such-interpreter\n", { mode: 0o755 });
  const r = await run(["call", "broke", "{}", "--allow-run", "--approve", "broke"], { cwd: ws.path });
  expect(json(r)).toEqual({
    status: "failed",
    tool: "broke",
    error_code: "launch.spawn_failed",
    message: 'broke: cannot start "tools/broke/run": no such file (or its interpreter is missing)',
  });
});
