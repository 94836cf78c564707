// A toolgate.json in a subfolder must not hide the root's config: run from
// `sub/`, toolgate finds the nearest config first, which would drop the root's sandbox, denies and
// approvals. File tools refuse the config and lock names in every folder, and the boot refuses an
// untrusted nearer config that shadows another one up to the repository root (exit 5).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { digestOf } from "../../src/tools/files/atomic-write.ts";
import { run, tempDir, trustEnv } from "../helpers.ts";

const ROOT_CONFIG = JSON.stringify({ sandbox: "product", permissions: { deny: { run: ["curl"] } } });

function repo(root: string): string {
  const ws = join(root, "ws");
  mkdirSync(join(ws, "sub", "deeper"), { recursive: true });
  mkdirSync(join(ws, ".git"));
  writeFileSync(join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(ws, "toolgate.json"), ROOT_CONFIG);
  return ws;
}

const envOf = (home: string, more: Record<string, string> = {}) => ({
  HOME: home,
  XDG_STATE_HOME: join(home, "state"),
  ...more,
});

describe("file tools never write a config or lock name in a subfolder", () => {
  test.each([
    ["sub/toolgate.json"],
    ["sub/deeper/toolgate.json"],
    ["sub/toolgate.lock"],
    ["sub/TOOLGATE.JSON"],
    ["./sub/../sub/toolgate.json"],
  ])("file_write %p is path.protected and creates nothing", async (path) => {
    await using root = tempDir();
    const ws = repo(root.path);
    const r = await run(
      [
        "call",
        "file_write",
        JSON.stringify({ path, content: "{}" }),
        "--approve",
        "file_write",
        "--allow-read",
        `--allow-write=${ws}`,
        "--config",
        join(ws, "toolgate.json"),
      ],
      { cwd: ws, env: envOf(root.path) },
    );
    const out = JSON.parse(r.stdout);
    expect([r.code, out.error_code]).toEqual([1, "path.protected"]);
    expect(out.message).toContain("in any folder");
    expect([
      existsSync(join(ws, "sub", "toolgate.json")),
      existsSync(join(ws, "sub", "deeper", "toolgate.json")),
      existsSync(join(ws, "sub", "toolgate.lock")),
    ]).toEqual([false, false, false]);
  });

  test("file_edit of an existing sub/toolgate.json is refused and leaves it unchanged", async () => {
    await using root = tempDir();
    const ws = repo(root.path);
    const text = '{"sandbox":"product"}\n';
    writeFileSync(join(ws, "sub", "toolgate.json"), text);
    const args = {
      path: "sub/toolgate.json",
      digest: digestOf(Buffer.from(text)),
      old_string: '"product"',
      new_string: '"off"',
    };
    const r = await run(
      [
        "call",
        "file_edit",
        JSON.stringify(args),
        "--approve",
        "file_edit",
        "--allow-read",
        `--allow-write=${ws}`,
        "--config",
        join(ws, "toolgate.json"),
      ],
      { cwd: ws, env: envOf(root.path) },
    );
    expect([r.code, JSON.parse(r.stdout).error_code]).toEqual([1, "path.protected"]);
    expect(readFileSync(join(ws, "sub", "toolgate.json"), "utf8")).toBe(text);
  });
});

describe("an untrusted nearer config that shadows the root's does not boot", () => {
  test("run from sub/, it is refused (exit 5) naming both files and the ways out", async () => {
    await using root = tempDir();
    const ws = repo(root.path);
    writeFileSync(join(ws, "sub", "toolgate.json"), '{ "sandbox": "off" }');
    const r = await run(["call", "file_read", JSON.stringify({ path: "x" }), "--allow-read"], {
      cwd: join(ws, "sub", "deeper"),
      env: envOf(root.path),
    });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(join(ws, "sub", "toolgate.json"));
    expect(r.stderr).toContain(join(ws, "toolgate.json"));
    expect(r.stderr).toContain("--config");
    expect(r.stderr).toContain("toolgate trust");
    // Nothing ran: not even the state folder was made.
    expect(existsSync(join(ws, "sub", "deeper", ".toolgate"))).toBe(false);
    expect(existsSync(join(ws, ".toolgate"))).toBe(false);
    const tools = await run(["tools"], { cwd: join(ws, "sub"), env: envOf(root.path) });
    expect(tools.code).toBe(5);
  });

  test("trusted, it is used with a note; --config picks the root one; at the root nothing changes", async () => {
    await using root = tempDir();
    const ws = repo(root.path);
    const sub = join(ws, "sub", "toolgate.json");
    writeFileSync(sub, '{ "sandbox": "off" }');
    const trusted = await run(["tools"], { cwd: join(ws, "sub"), env: envOf(root.path, trustEnv(sub)) });
    expect(trusted.code).toBe(0);
    expect(trusted.stderr).toContain(`hides ${join(ws, "toolgate.json")}`);
    const flagged = await run(["tools", "--config", join(ws, "toolgate.json")], {
      cwd: join(ws, "sub"),
      env: envOf(root.path),
    });
    expect(flagged.code).toBe(0);
    expect(flagged.stderr).toContain("sandbox: product");
    expect(flagged.stderr).not.toContain("hides");
    const atRoot = await run(["tools"], { cwd: ws, env: envOf(root.path) });
    expect(atRoot.code).toBe(0);
    expect(atRoot.stderr).not.toContain("hides");
  });

  test("a config in a subfolder with none above it boots untrusted as before", async () => {
    await using root = tempDir();
    const ws = repo(root.path);
    rmSync(join(ws, "toolgate.json"));
    writeFileSync(join(ws, "sub", "toolgate.json"), '{ "sandbox": "off" }');
    const r = await run(["tools"], { cwd: join(ws, "sub"), env: envOf(root.path) });
    expect(r.code).toBe(0);
    expect(r.stderr).not.toContain("hides");
  });
});
