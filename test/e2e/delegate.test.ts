// Delegation end to end through dist/toolgate: a task call starts the fixture child agent
// (test/fixtures/delegate/agent.ts, run with bun) through the launcher; the agent connects to the
// child `toolgate serve` its argv names and calls tools; its rows land in the parent's journal.
import { beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { BIN, json, ROOT, run, tempDir } from "../helpers.ts";
import { makeStateFolder } from "../../src/state/folder.ts";

const AGENT = join(ROOT, "test", "fixtures", "delegate", "agent.ts");

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

async function git(cwd: string, ...args: string[]): Promise<string> {
  const p = Bun.spawn(["git", "-c", "user.name=t", "-c", "user.email=t@t", ...args], {
    cwd,
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: "/usr/bin:/bin", HOME: cwd },
  });
  const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
  if (code !== 0) throw new Error(`git ${args.join(" ")} failed`);
  return out;
}

/** A repository with one commit (a.txt, notes/b.txt) and a trusted config (--config) naming the fixture agent. */
async function repo(dir: string, delegation: Record<string, unknown> = {}) {
  const ws = join(dir, "ws");
  mkdirSync(join(ws, "notes"), { recursive: true });
  writeFileSync(join(ws, "a.txt"), "one\ntwo\nthree\nfour\nfive\nsix\nseven\n");
  writeFileSync(join(ws, "notes", "b.txt"), "bee\n");
  writeFileSync(join(ws, ".gitignore"), ".toolgate/\n");
  await git(ws, "init", "-q");
  await git(ws, "add", ".");
  await git(ws, "commit", "-qm", "init");
  const cfg = join(dir, "cfg.json");
  const root = join(dir, "worktrees");
  writeFileSync(
    cfg,
    JSON.stringify({
      workspace: ws,
      delegation: {
        command: [process.execPath, AGENT, "{objective}", "{server}"],
        worktree_root: root,
        timeout_secs: 60,
        ...delegation,
      },
    }),
  );
  return { ws, cfg, root };
}

const objective = (o: unknown) => JSON.stringify(o);
const task = (cfg: string, ws: string, o: unknown, kind: "scout" | "write") =>
  run(
    [
      "call",
      "task",
      JSON.stringify({ objective: typeof o === "string" ? o : objective(o), kind }),
      "--config",
      cfg,
      "--allow-read",
      "--approve",
      "task",
    ],
    { cwd: ws },
  );
const applyChange = (cfg: string, ws: string, args: unknown) =>
  run(["call", "apply_change", JSON.stringify(args), "--config", cfg, "--allow-write", "--approve", "apply_change"], {
    cwd: ws,
  });
const names = async (cfg: string, ws: string, extra: string[] = []) =>
  (await run(["tools", "--json", "--config", cfg, ...extra], { cwd: ws })).stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l).name as string);

describe("delegation: config and the catalog", () => {
  test("task needs delegation.command, apply_change a worktree root too", async () => {
    await using d = tempDir();
    const { ws, cfg } = await repo(d.path);
    const all = await names(cfg, ws);
    expect(["task", "apply_change"].filter((n) => all.includes(n))).toEqual(["task", "apply_change"]);
    const noRoot = join(d.path, "c2.json");
    writeFileSync(
      noRoot,
      JSON.stringify({ workspace: ws, delegation: { command: [process.execPath, AGENT, "{objective}", "{server}"] } }),
    );
    const some = await names(noRoot, ws);
    expect(["task", "apply_change"].filter((n) => some.includes(n))).toEqual(["task"]);
    const none = join(d.path, "c3.json");
    writeFileSync(none, JSON.stringify({ workspace: ws, delegation: { worktree_root: "../wt" } }));
    const bare = await names(none, ws);
    expect(["task", "apply_change"].filter((n) => bare.includes(n))).toEqual([]);
  });

  test("a template without {objective} or a server placeholder fails the boot (exit 5)", async () => {
    await using d = tempDir();
    const { ws } = await repo(d.path);
    const bad = join(d.path, "bad.json");
    writeFileSync(bad, JSON.stringify({ workspace: ws, delegation: { command: ["agent", "{objective}"] } }));
    const r = await run(["tools", "--config", bad], { cwd: ws });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("delegation.command names none of {server}, {server_command}, {mcp_config}");
  });

  test("an untrusted workspace toolgate.json may not choose the child program or the worktree root (exit 5)", async () => {
    await using d = tempDir();
    const { ws } = await repo(d.path);
    for (const delegation of [{ command: ["agent", "{objective}", "{server}"] }, { worktree_root: "../wt" }]) {
      writeFileSync(join(ws, "toolgate.json"), JSON.stringify({ delegation }));
      const r = await run(["tools", "--json"], { cwd: ws });
      expect([r.code, r.stdout]).toEqual([5, ""]);
      expect(r.stderr).toContain(`delegation.${Object.keys(delegation)[0]}`);
    }
  });

  test("an empty or oversized objective is refused task.objective, and no child starts", async () => {
    await using d = tempDir();
    const { ws, cfg } = await repo(d.path);
    for (const o of ["  ", "x".repeat(8001)]) {
      const r = await task(cfg, ws, o, "scout");
      expect([r.code, json(r).error_code]).toEqual([1, "task.objective"]);
    }
    expect(existsSync(join(ws, ".toolgate", "children"))).toBe(false);
  });
});

describe("delegation: a scout child", () => {
  test("sees a subset of the parent's catalog, cannot write by name, and its calls are journaled under the task call", async () => {
    await using d = tempDir();
    const { ws, cfg } = await repo(d.path);
    const parent = await names(cfg, ws);
    const r = await task(
      cfg,
      ws,
      {
        calls: [
          { tool: "file_read", args: { path: "a.txt" } },
          { tool: "file_write", args: { path: "x.txt", content: "x" } },
          { tool: "bash", args: { command: "touch y" } },
        ],
        say: "looked",
      },
      "scout",
    );
    expect(r.code).toBe(0);
    const p = json(r).payload;
    expect([p.kind, p.status, p.summary, p.truncated, p.exit]).toEqual([
      "scout",
      "done",
      "looked",
      false,
      "exit code 0",
    ]);
    const childTools = (p.findings[0] as string).replace("tools: ", "").split(",");
    expect(childTools).toEqual(["desk", "file_find", "file_read", "file_search", "plan", "skill_list", "skill_load"]);
    expect(childTools.filter((t) => !parent.includes(t))).toEqual([]);
    expect(p.findings[1]).toStartWith("file_read: ok: ");
    expect(p.findings[1]).toContain("1\\tone");
    expect(JSON.parse((p.findings[2] as string).replace("file_write: error: ", "")).error_code).toBe(
      "profile.excluded",
    );
    expect(JSON.parse((p.findings[3] as string).replace("bash: error: ", "")).error_code).toBe("profile.excluded");
    expect(existsSync(join(ws, "x.txt")) || existsSync(join(ws, "y"))).toBe(false);
    const rows = (await run(["log", "--json", "--config", cfg], { cwd: ws })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const taskRow = rows.find((x) => x.tool === "task");
    expect(rows.map((x) => [x.tool, x.status, x.error_code, x.parent])).toEqual([
      ["task", "success", null, null],
      ["file_read", "success", null, taskRow.id],
      ["file_write", "failed", "profile.excluded", taskRow.id],
      ["bash", "failed", "profile.excluded", taskRow.id],
    ]);
    expect(readdirSync(join(ws, ".toolgate", "children"))).toEqual([]);
  });

  test("the parent's --deny-read reaches the child: a scout cannot read the denied file, nor a write child its copy in the worktree", async () => {
    await using d = tempDir();
    const { ws, cfg } = await repo(d.path);
    writeFileSync(join(ws, "secret.env"), "TOKEN=abc\n");
    const read = {
      calls: [
        { tool: "file_read", args: { path: "secret.env" } },
        { tool: "file_read", args: { path: "a.txt" } },
      ],
    };
    for (const kind of ["scout", "write"] as const) {
      const r = await run(
        [
          "call",
          "task",
          JSON.stringify({ objective: objective(read), kind }),
          "--config",
          cfg,
          "--allow-read",
          "--deny-read=secret.env",
          "--approve",
          "task",
        ],
        { cwd: ws },
      );
      const p = json(r).payload;
      expect([
        kind,
        p.findings[1].startsWith("file_read: error: "),
        JSON.parse(p.findings[1].replace("file_read: error: ", "")).error_code,
      ]).toEqual([kind, true, "permission.denied"]);
      expect(p.findings[1]).not.toContain("TOKEN=abc");
      expect([kind, p.findings[2]]).toEqual([kind, expect.stringContaining("file_read: ok: ")]);
    }
  });

  test("the wall-time bound ends the child agent and its server: status timeout, nothing left running", async () => {
    await using d = tempDir();
    const { ws, cfg } = await repo(d.path, { timeout_secs: 2 });
    const started = performance.now();
    const r = await task(cfg, ws, { hang: true, calls: [{ tool: "file_read", args: { path: "a.txt" } }] }, "scout");
    expect(json(r).payload).toMatchObject({ status: "timeout", exit: "timeout", timeout_secs: 2 });
    expect(performance.now() - started).toBeLessThan(30_000);
    // No process of the tree survives: none whose command line names this workspace.
    const left = readdirSync("/proc")
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return readFileSync(`/proc/${p}/cmdline`, "utf8").includes(ws);
        } catch {
          return false;
        }
      });
    expect(left).toEqual([]);
    // The call the child made before it hung is journaled under the task.
    const rows = (await run(["log", "--json", "--config", cfg], { cwd: ws })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.map((x) => [x.tool, x.parent === null ? null : "child"])).toEqual([
      ["task", null],
      ["file_read", "child"],
    ]);
  });
});

/** The checkout as bytes and as git sees it: what "untouched" is compared on. */
async function snapshot(ws: string) {
  const files = (await git(ws, "ls-files", "-co", "--exclude-standard")).trim().split("\n").sort();
  return {
    status: await git(ws, "status", "--porcelain"),
    bytes: files.map((f) => [f, existsSync(join(ws, f)) ? readFileSync(join(ws, f), "base64") : null]),
  };
}

describe("delegation: a write child and apply_change", () => {
  const edit = (oldText: string, newText: string) => ({
    calls: [
      { tool: "file_read", args: { path: "a.txt" } },
      { tool: "file_edit", args: { path: "a.txt", digest: "$digest", old_string: oldText, new_string: newText } },
      { tool: "file_write", args: { path: "notes/new.txt", content: "from the child\n" } },
    ],
  });

  test("edits only its worktree (from HEAD plus the uncommitted change); apply_change applies three-way once", async () => {
    await using d = tempDir();
    const { ws, cfg, root } = await repo(d.path);
    // An uncommitted change the child starts from.
    writeFileSync(join(ws, "a.txt"), "one\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n");
    const before = await snapshot(ws);
    const r = await task(cfg, ws, edit("two", "TWO"), "write");
    expect(r.code).toBe(0);
    const p = json(r).payload;
    expect(p.findings.slice(0, 1)).toEqual(["tools: file_edit,file_read,file_write"]);
    expect(p.change).toMatchObject({
      files: [
        { path: "a.txt", added: 1, deleted: 1 },
        { path: "notes/new.txt", added: 1, deleted: 0 },
      ],
      insertions: 2,
      deletions: 1,
    });
    expect(await snapshot(ws)).toEqual(before);
    // The checkout moves on meanwhile (another line): the apply is three-way.
    writeFileSync(join(ws, "a.txt"), "one\ntwo\nthree\nfour\nfive\nSIX\nSEVEN\n");
    const a = await applyChange(cfg, ws, { change_id: p.change.change_id });
    expect(json(a).payload).toEqual({
      change_id: p.change.change_id,
      status: "applied",
      files: [
        { path: "a.txt", how: "merged" },
        { path: "notes/new.txt", how: "child" },
      ],
      unchanged: 0,
      worktree_removed: true,
    });
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("one\nTWO\nthree\nfour\nfive\nSIX\nSEVEN\n");
    expect(readFileSync(join(ws, "notes", "new.txt"), "utf8")).toBe("from the child\n");
    expect(readdirSync(root)).toEqual([`${p.change.change_id}.json`]);
    expect((await git(ws, "worktree", "list")).trim().split("\n").length).toBe(1);
    const again = await applyChange(cfg, ws, { change_id: p.change.change_id });
    expect([again.code, json(again).error_code]).toEqual([1, "change.applied"]);
    const rows = (await run(["log", "--json", "--config", cfg], { cwd: ws })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const t = rows.find((x) => x.tool === "task");
    expect(rows.map((x) => [x.tool, x.status, x.parent === t.id])).toEqual([
      ["task", "success", false],
      ["file_read", "success", true],
      ["file_edit", "success", true],
      ["file_write", "success", true],
      ["apply_change", "success", false],
      ["apply_change", "failed", false],
    ]);
  });

  test("a tracked file that a .gitignore matches is part of the change like any other", async () => {
    await using d = tempDir();
    const { ws, cfg } = await repo(d.path);
    mkdirSync(join(ws, "dist"));
    writeFileSync(join(ws, "dist", "out.js"), "old\n");
    writeFileSync(join(ws, ".gitignore"), ".toolgate/\ndist/\n");
    await git(ws, "add", "-f", ".gitignore", "dist/out.js");
    await git(ws, "commit", "-qm", "dist");
    const calls = [{ tool: "file_write", args: { path: "dist/out.js", content: "new\n", overwrite: true } }];
    const p = json(await task(cfg, ws, { calls }, "write")).payload;
    expect(p.change.files).toEqual([{ path: "dist/out.js", added: 1, deleted: 1 }]);
    expect(json(await applyChange(cfg, ws, { change_id: p.change.change_id })).status).toBe("success");
    expect(readFileSync(join(ws, "dist", "out.js"), "utf8")).toBe("new\n");
  });

  test("a conflict is refused listing the files, with the checkout byte-for-byte untouched; discard then removes the change", async () => {
    await using d = tempDir();
    const { ws, cfg, root } = await repo(d.path);
    const p = json(await task(cfg, ws, edit("two", "child's two"), "write")).payload;
    writeFileSync(join(ws, "a.txt"), "one\nparent's two\nthree\nfour\nfive\nsix\nseven\n");
    const before = await snapshot(ws);
    const a = await applyChange(cfg, ws, { change_id: p.change.change_id });
    expect([a.code, json(a).error_code, json(a).details]).toEqual([1, "change.conflict", { files: ["a.txt"] }]);
    expect(await snapshot(ws)).toEqual(before);
    // The child's worktree is gone once it ended; its change waits in the change's own git folder.
    expect([existsSync(join(root, p.change.change_id)), existsSync(join(root, `${p.change.change_id}.git`))]).toEqual([
      false,
      true,
    ]);
    const x = await applyChange(cfg, ws, { change_id: p.change.change_id, discard: true });
    expect(json(x).payload).toEqual({ change_id: p.change.change_id, status: "discarded", worktree_removed: true });
    expect(readdirSync(root)).toEqual([`${p.change.change_id}.json`]);
    expect(await snapshot(ws)).toEqual(before);
    const again = await applyChange(cfg, ws, { change_id: p.change.change_id });
    expect(json(again).error_code).toBe("change.discarded");
    expect(json(await applyChange(cfg, ws, { change_id: "0123456789abcdef" })).error_code).toBe("change.unknown");
  });

  test("the sweep at boot removes the folders of a change whose record is gone, and keeps a ready one", async () => {
    await using d = tempDir();
    const { ws, cfg, root } = await repo(d.path);
    const kept = json(await task(cfg, ws, edit("two", "2"), "write")).payload.change.change_id;
    const lost = json(await task(cfg, ws, edit("three", "3"), "write")).payload.change.change_id;
    rmSync(join(root, `${lost}.json`));
    const r = await run(["tools", "--json", "--config", cfg], { cwd: ws });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`removed the folders of 1 change no longer pending (${lost})`);
    expect(readdirSync(root).sort()).toEqual([`${kept}.git`, `${kept}.json`].sort());
  });
});

describe("delegation under the product sandbox", () => {
  test("a write child edits its worktree through its server but cannot write the checkout itself", async () => {
    await using d = tempDir();
    const { ws, cfg } = await repo(d.path, { timeout_secs: 60 });
    // The sandbox shows the system and the workspace, not /tmp, /home or /root, where a checkout
    // of this repository (and so dist/toolgate and the fixture) may lie: the parent runs from a
    // copy of the binary and the agent from a bundle, both in the workspace's (ignored) state folder.
    const bin = join(ws, ".toolgate", "bin");
    makeStateFolder(join(ws, ".toolgate")); // toolgate's own, as an earlier call made it
    mkdirSync(bin, { recursive: true });
    const built = await Bun.build({ entrypoints: [AGENT], target: "bun", outdir: bin });
    expect(built.success).toBe(true);
    const self = join(bin, "toolgate");
    copyFileSync(BIN, self);
    chmodSync(self, 0o755);
    const conf = JSON.parse(readFileSync(cfg, "utf8"));
    writeFileSync(
      cfg,
      JSON.stringify({
        ...conf,
        sandbox: "product",
        delegation: {
          ...conf.delegation,
          command: [process.execPath, join(bin, "agent.js"), "{objective}", "{server}"],
        },
      }),
    );
    const before = await snapshot(ws);
    const objectiveText = objective({
      calls: [{ tool: "file_write", args: { path: "c.txt", content: "c\n" } }],
      touch: join(ws, "a.txt"),
    });
    const p0 = Bun.spawn(
      [
        self,
        "call",
        "task",
        JSON.stringify({ objective: objectiveText, kind: "write" }),
        "--config",
        cfg,
        "--allow-read",
        "--approve",
        "task",
      ],
      {
        cwd: ws,
        env: { PATH: "/usr/bin:/bin", HOME: ws, CI: "true" },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const r = {
      stdout: await new Response(p0.stdout).text(),
      stderr: await new Response(p0.stderr).text(),
      code: await p0.exited,
    };
    const p = json(r).payload;
    expect([p.status, p.findings.slice(1)]).toEqual([
      "done",
      [
        `file_write: ok: {"path":"c.txt","digest":"sha256:${new Bun.CryptoHasher("sha256").update("c\n").digest("hex")}","bytes":2,"created":true}`,
        "touch: EROFS",
      ],
    ]);
    expect(p.change.files).toEqual([{ path: "c.txt", added: 1, deleted: 0 }]);
    expect(await snapshot(ws)).toEqual(before);
  });
});
