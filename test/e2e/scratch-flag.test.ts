// End to end (the compiled binary): `--scratch DIR` sets the scratch folder for one run, over the
// config's scratch key. It is the user's, so it may lie outside the workspace (an untrusted config
// could not put it there), and the layout checks the key has hold for it: never the state folder.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";

/** A checkout (a git repository), a folder of the user's beside it, and HOME apart from both. */
function layout(root: string) {
  const ws = join(root, "ws");
  const mine = join(root, "mine");
  const home = join(root, "home");
  for (const d of [join(ws, ".git"), mine, home]) mkdirSync(d, { recursive: true });
  writeFileSync(join(mine, "note.txt"), "from my scratch\n");
  return { ws, mine, env: { HOME: home, XDG_STATE_HOME: join(home, "state") } };
}

const catNote = ["call", "scratch_read", '{"argv":["cat","note.txt"]}', "--approve", "scratch_read", "--allow-read"];

describe("--scratch DIR", () => {
  test("scratch_read reads the folder the flag names, relative to where toolgate runs; config shows the flag as its origin", async () => {
    await using d = tempDir();
    const { ws, mine, env } = layout(d.path);
    const r = await run([...catNote, "--scratch", "../mine"], { cwd: ws, env });
    expect([r.code, json(r).payload?.stdout?.tail]).toEqual([0, "from my scratch\n"]);
    const c = await run(["config", "--json", `--scratch=${mine}`], { cwd: ws, env });
    expect(json(c).scratch).toEqual({ value: mine, origin: "flag:--scratch" });
  });

  test("the flag wins over the config's key, and an untrusted config's scratch outside the workspace is not needed", async () => {
    await using d = tempDir();
    const { ws, mine, env } = layout(d.path);
    writeFileSync(join(ws, "toolgate.json"), JSON.stringify({ scratch: "../elsewhere" }));
    // Without the flag the untrusted config would widen (a folder outside the workspace): the boot fails.
    const without = await run(catNote, { cwd: ws, env });
    expect(without.code).toBe(5);
    expect(without.stderr).toContain("scratch");
    const r = await run([...catNote, "--scratch", mine], { cwd: ws, env });
    expect([r.code, json(r).payload?.stdout?.tail]).toEqual([0, "from my scratch\n"]);
  });

  test.each([
    ["the state folder", ".toolgate", "is the state folder"],
    ["the workspace root (it holds the state folder)", ".", "holds the state folder"],
  ])("a flag naming %s fails the boot (exit 5), as the config key would", async (_what, flag, why) => {
    await using d = tempDir();
    const { ws, env } = layout(d.path);
    const r = await run([...catNote, "--scratch", flag], { cwd: ws, env });
    expect([r.code, r.stdout]).toEqual([5, ""]);
    expect(r.stderr).toContain(`${why}`);
    expect(r.stderr).toContain("(from flag:--scratch)");
    expect(r.stderr).toContain("give --scratch a folder of its own");
  });
});
