// Network tests run inside a network namespace that holds only loopback, so a policy bug fails
// with "network unreachable" instead of reaching out. Outside one, a file re-runs itself inside.
import { expect, test } from "bun:test";
import { networkInterfaces } from "node:os";

export const isolated = (): boolean => Object.keys(networkInterfaces()).every((n) => n === "lo");

/** Declares `body`'s tests when already isolated; otherwise one test that runs this file in `unshare -n`. */
export function inLoopbackNamespace(file: string, body: () => void): void {
  if (isolated()) {
    body();
    return;
  }
  test("runs inside a network namespace holding only loopback (unshare -n)", async () => {
    // Root makes the namespace directly; anyone else through a user namespace (-r).
    const unshare = process.getuid?.() === 0 ? ["unshare", "-n"] : ["unshare", "-rn"];
    const proc = Bun.spawn(
      [...unshare, "sh", "-c", 'ip link set lo up && exec "$0" test "$1" --timeout 60000', process.execPath, file],
      { stdout: "pipe", stderr: "pipe" },
    );
    const [out, err, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    if (code !== 0) process.stderr.write(`${out}\n${err}\n`);
    const summary = /(\d+) pass[\s\S]*?(\d+) fail/.exec(err);
    expect({ code, failed: summary?.[2] }).toEqual({ code: 0, failed: "0" });
  }, 600_000);
}
