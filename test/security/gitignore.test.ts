// The workspace's `.toolgate/` ignores itself when toolgate makes it, so a call leaves
// `git status` clean; a folder or `.gitignore` the user made is left alone.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run, tempDir } from "../helpers.ts";

const git = (cwd: string, ...args: string[]) => {
  const p = Bun.spawnSync(["git", ...args], {
    cwd,
    env: { PATH: "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" },
  });
  if (p.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${p.stderr.toString()}`);
  return p.stdout.toString();
};

describe(".toolgate/.gitignore", () => {
  test("a call in a clean repository leaves git status clean", async () => {
    await using dir = tempDir();
    git(dir.path, "init", "-q");
    writeFileSync(join(dir.path, "a.txt"), "hello\n");
    git(dir.path, "add", "a.txt");
    git(dir.path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a");
    const r = await run(["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"], {
      cwd: dir.path,
    });
    expect(r.code).toBe(0);
    expect(existsSync(join(dir.path, ".toolgate", "toolgate.db"))).toBe(true);
    expect(readFileSync(join(dir.path, ".toolgate", ".gitignore"), "utf8")).toContain("\n*\n");
    expect(git(dir.path, "status", "--porcelain")).toBe("");
  });

  test("a state folder the user made is not given a .gitignore", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, ".toolgate"));
    writeFileSync(join(dir.path, "a.txt"), "hello\n");
    const r = await run(["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"], {
      cwd: dir.path,
    });
    expect(r.code).toBe(0);
    expect(existsSync(join(dir.path, ".toolgate", "toolgate.db"))).toBe(true);
    expect(existsSync(join(dir.path, ".toolgate", ".gitignore"))).toBe(false);
  });
});
