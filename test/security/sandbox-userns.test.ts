// No nested user namespace inside the sandbox. In one, a command is root again
// with every capability over what it mounts there (more kernel to attack, a way around what the
// sandbox locked). The seccomp filter refuses clone and unshare with CLONE_NEWUSER and clone3.
// The attacker is a product-sandboxed `bash` call through dist/toolgate, as root and as nobody.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { productWorkspace } from "./product-workspace.ts";
import { BIN, json, type RunResult, run, runUnprivileged, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

// Each line prints ESCAPE:<how> only when a user namespace was made; `unshare -r` maps us to root in it.
const ATTACK = [
  "unshare -U true 2>/dev/null && echo ESCAPE:unshare",
  "unshare -Ur sh -c 'id -u' 2>/dev/null | grep -qx 0 && echo ESCAPE:unshare-root",
  "unshare -U --fork true 2>/dev/null && echo ESCAPE:unshare-fork",
  "echo ran",
].join("\n");

const WHO = ["root", "nobody"] as const;

describe("nested user namespaces in the product sandbox", () => {
  test.each(WHO)("as %s: every attempt works on the host (else the test proves nothing)", (who) => {
    const drop = who === "root" ? [] : ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
    const out = Bun.spawnSync([...drop, "/bin/bash", "-c", ATTACK], { cwd: "/" }).stdout.toString();
    expect(out).toBe("ESCAPE:unshare\nESCAPE:unshare-root\nESCAPE:unshare-fork\nran\n");
  });

  test.each(WHO)("as %s: unshare -U fails inside the sandbox", async (who) => {
    await using dir = tempDir();
    const args = ["call", "bash", JSON.stringify({ command: ATTACK }), "--allow-run=bash", "--approve", "bash"];
    let r: RunResult;
    if (who === "root") r = await run(args, { cwd: productWorkspace(dir.path), env: { HOME: dir.path } });
    else {
      chmodSync(dir.path, 0o755);
      const ws = productWorkspace(dir.path);
      for (const p of [ws, ...readdirSync(ws, { recursive: true }).map((e) => join(ws, String(e)))])
        chownSync(p, 65534, 65534);
      r = await runUnprivileged(args, { cwd: ws });
    }
    const out = json(r);
    expect(out).toMatchObject({ status: "success", payload: { sandbox: "product", exitCode: 0 } });
    expect(out.payload.stdout.tail).toBe("ran\n");
  });
});
