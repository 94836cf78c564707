// A run's HOME (src/launcher/run-home.ts): its own folder in the state folder, empty at the start
// whatever an earlier run or a killed process left, kept (emptied) for the next run, never shared
// by two runs at once, and refused when the folder holding them is not toolgate's.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeRunHome, releaseRunHome } from "../../src/launcher/run-home.ts";
import { tempDir } from "../helpers.ts";

const made = (state: string) => {
  const h = makeRunHome(state);
  if (!h.ok) throw new Error(h.message);
  return h.path;
};

test("empty at the start, emptied after, reused: a .profile one run leaves never reaches the next", async () => {
  await using dir = tempDir();
  const state = join(dir.path, ".toolgate");
  const first = made(state);
  expect(first).toMatch(new RegExp(`^${state}/home/${process.pid}-[0-9a-f]{32}$`));
  expect(readdirSync(first)).toEqual([]);
  writeFileSync(join(first, ".profile"), "echo planted\n");
  mkdirSync(join(first, ".cache", "deep"), { recursive: true });
  symlinkSync("/etc", join(first, "link"));
  releaseRunHome(first);
  expect(readdirSync(first)).toEqual([]);
  expect(existsSync("/etc/passwd")).toBe(true); // the link was removed, not followed
  const second = made(state);
  expect(second).not.toBe(first);
  expect(readdirSync(join(state, "home"))).toEqual([second.slice(second.lastIndexOf("/") + 1)]);
  releaseRunHome(second);
});

test("two runs at once get two folders; a gone process's leftover is taken and emptied", async () => {
  await using dir = tempDir();
  const state = join(dir.path, ".toolgate");
  const a = made(state);
  const b = made(state);
  expect(a).not.toBe(b);
  // A killed process left its home, with a dotfile in it (pid 2^22 + 1 is above any pid_max default).
  const left = join(state, "home", `4194305-${"0".repeat(32)}`);
  mkdirSync(left, { mode: 0o700 });
  writeFileSync(join(left, ".bashrc"), "echo planted\n");
  // a and b are in use: the third run takes the leftover (renamed to its own name), emptied.
  const c = made(state);
  expect(readdirSync(c)).toEqual([]);
  expect(existsSync(left)).toBe(false);
  expect(readdirSync(join(state, "home")).sort()).toEqual([a, b, c].map((p) => p.slice(p.lastIndexOf("/") + 1)).sort());
  for (const p of [a, b, c]) releaseRunHome(p);
});

test("a link where the homes folder should be is refused, naming it", async () => {
  await using dir = tempDir();
  const state = join(dir.path, ".toolgate");
  mkdirSync(state);
  symlinkSync(dir.path, join(state, "home"));
  const h = makeRunHome(state);
  expect(h).toEqual({
    ok: false,
    message: `${join(state, "home")} is not a folder toolgate made (a symbolic link): remove it, toolgate makes it again`,
  });
});
