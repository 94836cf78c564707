// dev_check copies the untracked files into the gate's copy as the caller
// (root) and outside the sandbox, while a sandboxed model may swap names in the checkout. A file
// swapped for a link to a secret (`f` <-> `f -> /etc/shadow`), or a folder of untracked files
// swapped for a link to an outside folder, must never bring an outside file's content into the copy.
import { beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../fixtures/gates/make-repo.ts";
import { BIN, json, run, tempDir } from "../helpers.ts";
import { startSwapper } from "./race-harness.ts";

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

const FILES = 40;
const ATTEMPTS = 12;

test("a symlink swapped in while the copy is made never copies an outside file", async () => {
  await using dir = tempDir();
  const secret = `SECRET-${crypto.randomUUID()}`;
  const outside = join(dir.path, "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "shadow"), `${secret}\n`);
  for (let i = 0; i < FILES; i++) writeFileSync(join(outside, `n${i}`), `${secret}\n`);
  const real = join(dir.path, "repo");
  mkdirSync(join(real, "script"), { recursive: true });
  // The gate names every regular file in its copy that holds the secret (grep -r follows no link).
  writeFileSync(
    join(real, "script", "check-leak.sh"),
    "grep -rl --exclude-dir=.git --exclude-dir=script SECRET- . | sed 's/^/LEAK:/'; echo scanned\n",
  );
  git(real, "init", "-q", "-b", "main");
  git(real, "add", "-A");
  git(real, "commit", "-q", "-m", "fixture");
  // Untracked: a file and a link to the secret, swapped; a folder of files and a link to the
  // outside folder (holding the same names), swapped.
  mkdirSync(join(real, "last"));
  writeFileSync(join(real, "last", "f"), "harmless\n");
  symlinkSync(join(outside, "shadow"), join(real, "last", "g"));
  mkdirSync(join(real, "dd"));
  for (let i = 0; i < FILES; i++) writeFileSync(join(real, "dd", `n${i}`), "harmless\n");
  symlinkSync(outside, join(real, "de"));

  await using fileSwap = await startSwapper(join(real, "last", "f"), join(real, "last", "g"), 120_000);
  await using dirSwap = await startSwapper(join(real, "dd"), join(real, "de"), 120_000);
  const leaks: string[] = [];
  const crashes: string[] = [];
  let passed = 0;
  for (let i = 0; i < ATTEMPTS; i++) {
    const r = await run(["call", "dev_check", '{"gate":"leak"}', "--allow-run=bash,git", "--approve", "dev_check"], {
      cwd: real,
      env: { HOME: dir.path, XDG_STATE_HOME: join(dir.path, "state") },
    });
    if (r.stdout === "") {
      crashes.push(`exit ${r.code}: ${r.stderr.split("\n")[0]}`); // the race must be refused, not crash toolgate
      continue;
    }
    const out = json(r);
    if (out.status !== "success") continue; // a refused copy leaks nothing
    const tail: string = out.payload.gates[0].stdout.tail;
    if (tail.includes("scanned")) passed++;
    leaks.push(...tail.split("\n").filter((l) => l.startsWith("LEAK:")));
  }
  await fileSwap.stop();
  await dirSwap.stop();
  expect({ leaks, crashes }).toEqual({ leaks: [], crashes: [] });
  expect(passed).toBeGreaterThan(0);
}, 120_000);
