// With `sandbox: off`, a process that left the call's session and group and
// lost its parent (`(setsid cmd &)`) is still found (toolgate is a child subreaper) and ended,
// at the call's end and at its timeout; the result counts what was ended.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync } from "node:fs";
import { join } from "node:path";
import { gone, pidsIn, waitFor } from "../launcher/support.ts";
import { BIN, json, run, runUnprivileged, tempDir, type RunResult } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

// The orphan writes its pid, then becomes `sleep` (same pid), detached from every stream of the call.
const DETACH = `(setsid bash -c 'echo $$ >> orphan.pid; exec sleep 3001' </dev/null >/dev/null 2>&1 &)`;
/** Waits (bounded) until the orphan wrote its pid, so it has left the tree before the call goes on. */
const AWAIT_PID = "for i in $(seq 500); do [ -s orphan.pid ] && break; sleep 0.01; done";
const GRANT = ["--allow-run=bash", "--approve", "bash"];
const WHO = ["root", "nobody"] as const;

/** The call as root, or as nobody (setpriv) in a workspace nobody owns. */
async function call(
  who: (typeof WHO)[number],
  ws: string,
  args: { command: string; timeout_secs?: number },
): Promise<RunResult> {
  const argv = ["call", "bash", JSON.stringify(args), ...GRANT];
  if (who === "root") return run(argv, { cwd: ws });
  chmodSync(ws, 0o755);
  chownSync(ws, 65534, 65534);
  return runUnprivileged(argv, { cwd: ws });
}

describe("orphans with sandbox off", () => {
  test.each(WHO)("as %s: an orphan left behind is ended when the call ends, and counted", async (who) => {
    await using ws = tempDir();
    const r = await call(who, ws.path, { command: `${DETACH}; ${AWAIT_PID}; echo done` });
    const [pid] = await pidsIn(join(ws.path, "orphan.pid"), 1);
    try {
      expect(json(r)).toMatchObject({ status: "success", payload: { sandbox: "off", exitCode: 0, leftovers: 1 } });
      expect(json(r).payload.survivors).toBeUndefined();
      // toolgate has exited: nothing of the call is left (a zombie is only waiting for init).
      expect(gone(pid!)).toBe(true);
    } finally {
      if (!gone(pid!)) process.kill(pid!, "SIGKILL");
    }
  });

  // Made between two of the launcher's tree samples (at about 310 and 630 ms), where only a subreaper finds it.
  test.each(WHO)("as %s: an orphan made before a timeout is ended with the call", async (who) => {
    await using ws = tempDir();
    const r = await call(who, ws.path, { command: `sleep 0.4; ${DETACH}; ${AWAIT_PID}; sleep 100`, timeout_secs: 1.5 });
    const [pid] = await pidsIn(join(ws.path, "orphan.pid"), 1);
    try {
      expect(json(r)).toMatchObject({ status: "failed", error_code: "bash.timeout", details: { ended: "timeout" } });
      expect(json(r).details.survivors).toBeUndefined();
      await waitFor("the orphan to be gone", () => gone(pid!), 2_000);
    } finally {
      if (!gone(pid!)) process.kill(pid!, "SIGKILL");
    }
  });
});
