// A process toolgate starts itself (a session, a task's supervisor, the reaper) is toolgate again:
// Bun's runtime switches in the environment it is handed are left out (src/launcher/bun-switches.ts).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startDetached } from "../../src/launcher/detached.ts";
import { tempDir } from "../helpers.ts";

test("startDetached hands on the environment without Bun's runtime switches", async () => {
  await using dir = tempDir();
  const out = join(dir.path, "env");
  const env = {
    PATH: "/usr/bin:/bin",
    KEPT: "1",
    BUN_OPTIONS: "--smol",
    BUN_INSPECT_PRELOAD: "/x.js",
    BUN_BYTECODE_ORDER_OUT: "/tmp/o",
    BUN_JSC_useJIT: "0",
    BUN_BE_BUN: "1",
    NODE_REDIRECT_WARNINGS: "/tmp/w",
  };
  const p = startDetached(["/bin/sh", "-c", `env > '${out}'`], { cwd: dir.path, env });
  expect(await p.exited).toBe(0);
  const names = readFileSync(out, "utf8")
    .split("\n")
    .map((l) => l.slice(0, l.indexOf("=")))
    .filter((n) => n !== "" && n !== "PWD" && n !== "SHLVL" && n !== "_");
  expect(names.sort()).toEqual(["KEPT", "PATH"]);
});
