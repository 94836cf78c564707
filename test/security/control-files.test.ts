// Control files are protected where they would be, not only where they are
// (docs/tools.md): through dist/toolgate, file_write and file_edit refuse the config name at the
// workspace root, toolgate.lock, the authored-tools folder and .git, existing or not, by any
// spelling (./, .., a symlink to the folder or to the name, another case of .git), and leave nothing.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { digestOf } from "../../src/tools/files/atomic-write.ts";
import { run, tempDir } from "../helpers.ts";

async function repo(root: string): Promise<string> {
  const ws = join(root, "ws");
  mkdirSync(join(ws, "sub"), { recursive: true });
  mkdirSync(join(ws, ".git"));
  writeFileSync(join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
  symlinkSync(".", join(ws, "here")); // a folder symlink back to the root
  symlinkSync("tools", join(ws, "tools-alias")); // to the authored-tools folder, which does not exist
  symlinkSync("toolgate.json", join(ws, "cfg")); // dangling: to the config name, which does not exist
  return ws;
}

const call = (ws: string, home: string, tool: string, args: unknown, ...flags: string[]) =>
  run(["call", tool, JSON.stringify(args), "--approve", tool, "--allow-read", `--allow-write=${ws}`, ...flags], {
    cwd: ws,
    env: { HOME: home, XDG_STATE_HOME: join(home, "state") },
  });

describe("control files, not there yet", () => {
  test.each([
    ["toolgate.json"],
    ["./toolgate.json"],
    ["sub/../toolgate.json"],
    ["here/toolgate.json"],
    ["cfg"],
    ["toolgate.lock"],
    ["here/here/toolgate.lock"],
    ["tools/x/tool.json"],
    ["./tools/x/run.sh"],
    ["tools-alias/x/tool.json"],
    [".git/hooks/pre-commit"],
    [".GIT/hooks/pre-commit"],
    ["sub/.Git/config"],
  ])("file_write %p is refused as path.protected and creates nothing", async (path) => {
    await using root = tempDir();
    const ws = await repo(root.path);
    const before = readdirSync(ws).sort();
    const r = await call(ws, root.path, "file_write", { path, content: '{"permissions":{"allow":{"run":true}}}' });
    expect([r.code, JSON.parse(r.stdout).error_code]).toEqual([1, "path.protected"]);
    // .toolgate (the state folder) is the only name the call may add.
    expect(
      readdirSync(ws)
        .filter((n) => n !== ".toolgate")
        .sort(),
    ).toEqual(before);
    expect(existsSync(join(ws, "tools"))).toBe(false);
  });
});

describe("control files that exist", () => {
  test.each([
    ["toolgate.json", "toolgate.json", "product"],
    ["here/toolgate.json", "toolgate.json", "product"],
    ["toolgate.lock", "toolgate.lock", "version"],
    ["tools/x/run", "tools/x/run", "echo"],
    [".git/HEAD", ".git/HEAD", "main"],
  ])("file_edit %p is refused and the file is unchanged", async (path, real, word) => {
    await using root = tempDir();
    const ws = await repo(root.path);
    writeFileSync(join(ws, "toolgate.json"), '{"sandbox":"product"}\n');
    mkdirSync(join(ws, "tools", "x"), { recursive: true });
    writeFileSync(join(ws, "tools", "x", "run"), "#!/bin/sh\necho hi\n");
    const lock = await run(["tools", "--lock"], {
      cwd: ws,
      env: { HOME: root.path, XDG_STATE_HOME: join(root.path, "state") },
    });
    expect(lock.code).toBe(0);
    const text = readFileSync(join(ws, real), "utf8");
    const r = await call(ws, root.path, "file_edit", {
      path,
      digest: digestOf(Buffer.from(text)),
      old_string: word,
      new_string: "changed",
    });
    expect([r.code, JSON.parse(r.stdout).error_code]).toEqual([1, "path.protected"]);
    expect(readFileSync(join(ws, real), "utf8")).toBe(text);
  });

  test("a config given with --config inside the workspace, its lock and its authored.dir are protected where they are", async () => {
    await using root = tempDir();
    const ws = await repo(root.path);
    mkdirSync(join(ws, "conf"));
    writeFileSync(join(ws, "conf", "tg.json"), JSON.stringify({ authored: { dir: "mine" } }));
    for (const path of ["conf/tg.json", "mine/t/tool.json", "conf/toolgate.lock", "toolgate.json"]) {
      const r = await call(
        ws,
        root.path,
        "file_write",
        { path, content: "{}", overwrite: true },
        `--config=${join(ws, "conf", "tg.json")}`,
        `--workspace=${ws}`,
      );
      expect([path, JSON.parse(r.stdout).error_code]).toEqual([path, "path.protected"]);
    }
    expect(readFileSync(join(ws, "conf", "tg.json"), "utf8")).toBe(JSON.stringify({ authored: { dir: "mine" } }));
    expect([existsSync(join(ws, "mine")), existsSync(join(ws, "toolgate.json"))]).toEqual([false, false]);
  });

  test("an ordinary file beside them is still written", async () => {
    await using root = tempDir();
    const ws = await repo(root.path);
    const r = await call(ws, root.path, "file_write", { path: "sub/toolgate.json.md", content: "notes\n" });
    expect([r.code, JSON.parse(r.stdout).payload.created]).toEqual([0, true]);
  });
});
