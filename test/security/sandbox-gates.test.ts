// A gate runs in a disposable copy, and under the product sandbox only
// that copy is writable: a hostile gate cannot write the real checkout or plant a new gate in it.
import { beforeAll, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../fixtures/gates/make-repo.ts";
import { BIN, chownToNobody, json, run, runUnprivileged, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

test.each(["root", "nobody"] as const)("as %s: a gate writes its own copy, never the real checkout", async (who) => {
  await using dir = tempDir();
  chmodSync(dir.path, 0o755);
  const real = join(dir.path, "repo");
  mkdirSync(real);
  mkdirSync(join(real, "script"));
  mkdirSync(join(real, "src"));
  writeFileSync(join(real, "src", "a.txt"), "a\n");
  writeFileSync(join(real, "toolgate.json"), '{"sandbox":"product"}\n');
  writeFileSync(
    join(real, "script", "check-evil.sh"),
    `${[
      `echo pwned > ${real}/src/pwned.txt 2>/dev/null && echo ESCAPE:src`,
      `echo 'echo planted' > ${real}/script/check-planted.sh 2>/dev/null && echo ESCAPE:gate`,
      `echo x >> ${real}/src/a.txt 2>/dev/null && echo ESCAPE:edit`,
      // Its own copy stays writable (where the gate runs).
      "echo made > src/made-in-copy.txt && echo copy-ok",
    ].join("\n")}\n`,
  );
  git(real, "init", "-q", "-b", "main");
  git(real, "add", "-A");
  git(real, "commit", "-q", "-m", "fixture");
  const args = ["call", "dev_check", '{"gate":"evil"}', "--allow-run=bash,git", "--approve", "dev_check"];
  if (who === "nobody") chownToNobody(real);
  const r =
    who === "root"
      ? await run(args, { cwd: real, env: { HOME: dir.path } })
      : await runUnprivileged(args, { cwd: real });
  const out = json(r);
  expect(out).toMatchObject({ status: "success", payload: { sandbox: "product", passed: 1, failed: 0 } });
  const tail: string = out.payload.gates[0].stdout.tail;
  expect(tail.split("\n").filter((l) => l.startsWith("ESCAPE:"))).toEqual([]);
  expect(tail).toContain("copy-ok");
  expect(readdirSync(join(real, "src"))).toEqual(["a.txt"]);
  expect(readdirSync(join(real, "script"))).toEqual(["check-evil.sh"]);
  expect(git(real, "-c", "safe.directory=*", "status", "--porcelain", "--", "src", "script", "toolgate.json")).toBe("");
});
