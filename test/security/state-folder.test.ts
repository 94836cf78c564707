// The state folder is toolgate's own, never an input. A cloned checkout's committed
// `.toolgate/` (links to folders outside, a predictable prompts/args-<sha>.json link, a forged
// toolgate.db), a copied one, a link and another user's folder are refused at boot (exit 5),
// naming the folder and how to clear it; nothing is written through them, also when the user
// answers n at the prompt. As root: a root process follows any link it is handed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import {
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { argsForApproval } from "../../src/boundary/redact.ts";
import { BIN, json, onTty, run, tempDir, type TempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const git = (cwd: string, ...args: string[]) => {
  const p = Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    env: { PATH: "/usr/bin:/bin", HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" },
  });
  if (p.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${p.stderr.toString()}`);
};

/** A repository prepared by `prepare` (its `.toolgate/` committed past any .gitignore), then cloned as a user would. */
async function cloned(prepare: (src: string) => void | Promise<void>): Promise<TempDir> {
  const src = tempDir("toolgate-hostile-src-");
  const dest = tempDir("toolgate-hostile-");
  writeFileSync(join(src.path, "a.txt"), "ordinary\n");
  await prepare(src.path);
  git(src.path, "init", "-q", "-b", "main");
  git(src.path, "add", "-A");
  if (existsSync(join(src.path, ".toolgate"))) git(src.path, "add", "-f", ".toolgate");
  git(src.path, "commit", "-q", "-m", "hostile");
  git(dirname(dest.path), "clone", "-q", src.path, dest.path);
  return {
    path: dest.path,
    [Symbol.asyncDispose]: async () => (await src[Symbol.asyncDispose](), await dest[Symbol.asyncDispose]()),
  };
}

/** Everything under `dir` with its content: what "nothing written" is checked against. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const p = join(dir, name);
    out[name] = statSync(p).isDirectory() ? "<dir>" : readFileSync(p, "utf8");
  }
  return out;
}

let outside: TempDir;
beforeAll(() => {
  outside = tempDir("toolgate-outside-");
  mkdirSync(join(outside.path, "logrotate.d"));
  writeFileSync(join(outside.path, "victim.conf"), "untouched\n");
});
afterAll(() => outside[Symbol.asyncDispose]());

/** A call that opens the state (reads this lane's plan). */
const PLAN = ["call", "plan"];
const LONG = { command: `echo ${"x".repeat(5_000)}` };
/** The name today's prompt gave the overflow file: predictable from the arguments alone. */
const predictable = `args-${createHash("sha256").update(argsForApproval(LONG)).digest("hex").slice(0, 16)}.json`;

describe("a cloned checkout's committed .toolgate/ is not toolgate's", () => {
  test("links to folders outside (artifacts, the prompt's args file): exit 5 naming them, nothing written outside", async () => {
    await using ws = await cloned((src) => {
      mkdirSync(join(src, ".toolgate", "prompts"), { recursive: true });
      symlinkSync(join(outside.path, "logrotate.d"), join(src, ".toolgate", "artifacts"));
      symlinkSync(join(outside.path, "victim.conf"), join(src, ".toolgate", "prompts", predictable));
    });
    const before = snapshot(outside.path);
    const runs = [
      ["call", "bash", '{"command":"echo pwned"}', "--allow-run=bash", "--approve", "bash"],
      ["call", "bash", JSON.stringify(LONG), "--allow-run=bash", "--approve", "bash", "--background"],
      ["tools"],
      ["tasks", "list"],
      ["log"],
    ];
    const rs = [];
    for (const args of runs) rs.push(await run(args, { cwd: ws.path }));
    // Nothing reached the folder outside (today a root call's artifacts land in "logrotate.d").
    expect(snapshot(outside.path)).toEqual(before);
    for (const [i, r] of rs.entries()) {
      const what = runs[i]!.slice(0, 2).join(" ");
      expect([what, r.code, r.stdout]).toEqual([what, 5, ""]);
      expect(r.stderr).toContain(
        `the state folder ${join(ws.path, ".toolgate")} holds a symbolic link, ${join(ws.path, ".toolgate", "artifacts")}`,
      );
      expect(r.stderr).toContain(`rm -rf '${join(ws.path, ".toolgate")}'`);
    }
  });

  test("on a terminal, answering n: the boot refuses before the prompt; the predictable args file's target is untouched", async () => {
    await using ws = await cloned((src) => {
      mkdirSync(join(src, ".toolgate", "prompts"), { recursive: true });
      symlinkSync(join(outside.path, "victim.conf"), join(src, ".toolgate", "prompts", predictable));
    });
    const before = snapshot(outside.path);
    const t = await onTty(ws.path, ["call", "bash", JSON.stringify(LONG), "--allow-run=bash"], "n\n");
    // Today the prompt writes the arguments through the link before it asks, and the n changes nothing.
    expect(readFileSync(join(outside.path, "victim.conf"), "utf8")).toBe("untouched\n");
    expect(snapshot(outside.path)).toEqual(before);
    expect(t.code).toBe(5);
    expect(t.out).not.toContain("Approve?");
    expect(t.out).toContain(`the state folder ${join(ws.path, ".toolgate")} was not made by toolgate`);
  });

  test("a committed .toolgate that is itself a link (to a folder of the checkout, or outside): exit 5, nothing written", async () => {
    await using inside = await cloned((src) => {
      mkdirSync(join(src, "sub"));
      writeFileSync(join(src, "sub", "keep.txt"), "kept\n");
      symlinkSync("sub", join(src, ".toolgate"));
    });
    const r = await run(["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"], {
      cwd: inside.path,
    });
    expect([r.code, r.stdout]).toEqual([5, ""]);
    expect(r.stderr).toContain(`the state folder ${join(inside.path, ".toolgate")} is a symbolic link (to sub)`);
    expect(readdirSync(join(inside.path, "sub"))).toEqual(["keep.txt"]);

    await using out = await cloned((src) => symlinkSync(outside.path, join(src, ".toolgate")));
    const before = snapshot(outside.path);
    const o = await run(["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"], {
      cwd: out.path,
    });
    expect([o.code, o.stdout]).toEqual([5, ""]);
    expect(snapshot(outside.path)).toEqual(before);
  });

  test("a cloned toolgate.db (no links at all): exit 5, its rows are never read; removed, toolgate makes its own", async () => {
    await using ws = await cloned(async (src) => {
      // Made the way toolgate makes it, then committed: a real database with the attacker's rows.
      expect((await run(PLAN, { cwd: src })).code).toBe(0);
      const db = new Database(join(src, ".toolgate", "toolgate.db"));
      db.run(
        "INSERT INTO journal (time_ms, event, tool, status, duration_ms, args_preview, result_bytes) VALUES (1, 'tool_finished', 'planted_row', 'success', 0, '{}', 0)",
      );
      db.run("PRAGMA wal_checkpoint(TRUNCATE)");
      db.close();
    });
    const r = await run(["log", "--json"], { cwd: ws.path });
    expect([r.code, r.stdout]).toEqual([5, ""]);
    expect(r.stderr).toContain(
      `the state folder ${join(ws.path, ".toolgate")} was not made by toolgate here (its mark names another folder`,
    );
    rmSync(join(ws.path, ".toolgate"), { recursive: true });
    expect((await run(PLAN, { cwd: ws.path })).code).toBe(0);
    const log = await run(["log", "--json"], { cwd: ws.path });
    expect(log.code).toBe(0);
    expect(log.stdout).not.toContain("planted_row");
  });
});

describe("a state folder that is not this folder's own", () => {
  test("a copy of another workspace's (cp -a): exit 5; the original still works", async () => {
    await using one = tempDir();
    await using two = tempDir();
    expect((await run(PLAN, { cwd: one.path })).code).toBe(0);
    cpSync(join(one.path, ".toolgate"), join(two.path, ".toolgate"), { recursive: true, preserveTimestamps: true });
    const r = await run(PLAN, { cwd: two.path });
    expect([r.code, r.stdout]).toEqual([5, ""]);
    expect(r.stderr).toContain("its mark names another folder");
    expect((await run(PLAN, { cwd: one.path })).code).toBe(0);
  });

  test("another user's folder (as root: nobody's): exit 5 naming the owner", async () => {
    await using ws = tempDir();
    mkdirSync(join(ws.path, ".toolgate"), { mode: 0o700 });
    chownSync(join(ws.path, ".toolgate"), 65534, 65534);
    const r = await run(PLAN, { cwd: ws.path });
    expect([r.code, r.stdout]).toEqual([5, ""]);
    expect(r.stderr).toContain("belongs to another user (uid 65534");
    expect(readdirSync(join(ws.path, ".toolgate"))).toEqual([]);
  });

  test("an empty folder of the user's is adopted (closed to others, marked); one holding files is not", async () => {
    await using empty = tempDir();
    mkdirSync(join(empty.path, ".toolgate"), { mode: 0o755 });
    expect((await run(PLAN, { cwd: empty.path })).code).toBe(0);
    expect(statSync(join(empty.path, ".toolgate")).mode & 0o777).toBe(0o700);
    expect(existsSync(join(empty.path, ".toolgate", "made-by-toolgate"))).toBe(true);

    await using full = tempDir();
    mkdirSync(join(full.path, ".toolgate"));
    writeFileSync(join(full.path, ".toolgate", "catalog-cache.json"), "{}");
    const r = await run(PLAN, { cwd: full.path });
    expect([r.code, r.stdout]).toEqual([5, ""]);
    expect(r.stderr).toContain("was not made by toolgate (it has no mark of toolgate's; it holds catalog-cache.json)");
  });

  test("concurrent first calls in a fresh workspace all run: the folder is made and marked once", async () => {
    await using ws = tempDir();
    const rs = await Promise.all(Array.from({ length: 6 }, () => run(PLAN, { cwd: ws.path })));
    expect(rs.map((r) => [r.code, r.stderr])).toEqual(rs.map(() => [0, ""]));
    expect(readFileSync(join(ws.path, ".toolgate", "made-by-toolgate"), "utf8")).toStartWith(
      "toolgate made this folder: inode ",
    );
    expect(json(rs[0]!).status).toBe("success");
  });
});
