// stdout carries JSON-RPC and nothing else: with it claimed (src/serve/stdout.ts), every module
// under src/ loaded, and every console method and process.stdout.write used, only the protocol's
// own line reaches stdout; the rest lands on stderr.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT } from "../helpers.ts";

test("nothing but the claimed writer reaches stdout, from any module", async () => {
  const proc = Bun.spawn([process.execPath, join(ROOT, "test", "fixtures", "serve", "noisy.ts"), join(ROOT, "src")], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: "/usr/bin:/bin" },
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  expect(code).toBe(0);
  const lines = out.split("\n").filter(Boolean);
  expect(lines).toHaveLength(1);
  const msg = JSON.parse(lines[0]!);
  expect(msg.method).toBe("only-this");
  expect(msg.params.loaded).toBeGreaterThan(100);
  for (const said of ["log", "info", "debug", "trace", "group", "process.stdout.write", "consola default instance"])
    expect(err).toContain(said);
});
