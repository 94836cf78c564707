// `delegation.env` values (an agent's API key) came back unredacted in the child's
// summary. A secret stays a secret on every path: the values a `task` call hands its
// child are redacted from every view the call produces: its result (summary, findings, stderr), the
// journal (its own row and the child's rows filed under it), a background task's rows (result,
// live log) and every file under the workspace's state folder. The child itself still gets them.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../fixtures/gates/make-repo.ts";
import { BIN, json, ROOT, run, tempDir } from "../helpers.ts";

const AGENT = join(ROOT, "test", "fixtures", "delegate", "agent.ts");
const CANARY = `sk-canary-${process.pid}-7f1d9c2e`;
const ENV = { AGENT_API_KEY: CANARY };

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

function site(root: string) {
  const ws = join(root, "ws");
  mkdirSync(ws);
  writeFileSync(join(ws, "a.txt"), "one\n");
  git(ws, "init", "-q", "-b", "main");
  git(ws, "add", "-A");
  git(ws, "commit", "-q", "-m", "fixture");
  const cfg = join(root, "cfg.json");
  writeFileSync(
    cfg,
    JSON.stringify({
      workspace: ws,
      delegation: {
        command: [process.execPath, AGENT, "{objective}", "{server}"],
        timeout_secs: 60,
        env: ["AGENT_API_KEY"],
      },
    }),
  );
  return { ws, cfg };
}

/** The child prints the key in its summary and on stderr, and calls a tool with it (its journal row's arguments, the tool's answer). */
const objective = (fail: boolean) =>
  JSON.stringify({
    calls: [{ tool: "file_read", args: { path: "k-$ENV{AGENT_API_KEY}.txt" } }],
    say: "the key is $ENV{AGENT_API_KEY}",
    err: "auth with $ENV{AGENT_API_KEY}",
    fail,
  });

/** Every file under `dir`, as bytes: the databases, their WAL, artifacts. */
function allFiles(dir: string): { path: string; bytes: Buffer }[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => ({ path: join(e.parentPath, e.name), bytes: readFileSync(join(e.parentPath, e.name)) }));
}
const holding = (dir: string) =>
  allFiles(dir)
    .filter((f) => f.bytes.includes(CANARY))
    .map((f) => f.path);

describe("delegation.env values are secrets of the task call", () => {
  test("foreground: the child got the key, and no view holds it (result, stderr, journal, state files)", async () => {
    await using d = tempDir();
    const { ws, cfg } = site(d.path);
    const views: string[] = [];
    for (const fail of [false, true]) {
      const r = await run(
        [
          "call",
          "task",
          JSON.stringify({ objective: objective(fail), kind: "scout" }),
          "--config",
          cfg,
          "--allow-read",
          "--approve",
          "task",
        ],
        { cwd: ws, env: ENV },
      );
      const p = json(r).payload;
      // The child had it: the marker took its place everywhere it printed it.
      expect([p.status, p.summary]).toEqual([fail ? "failed" : "done", "the key is [REDACTED]"]);
      expect(p.findings[1]).toContain("k-[REDACTED].txt");
      if (fail) expect(p.stderr).toContain("auth with [REDACTED]");
      views.push(r.stdout, r.stderr);
    }
    const log = await run(["log", "--json", "--config", cfg], { cwd: ws });
    const table = await run(["log", "--config", cfg], { cwd: ws });
    const rows = log.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.filter((x) => x.tool === "file_read").map((x) => x.args_preview)).toEqual([
      expect.stringContaining("[REDACTED]"),
      expect.stringContaining("[REDACTED]"),
    ]);
    views.push(log.stdout, table.stdout);
    expect(views.filter((v) => v.includes(CANARY))).toEqual([]);
    expect(holding(join(ws, ".toolgate"))).toEqual([]);
  }, 60_000);

  test("background: the task's rows, live log and result never hold it", async () => {
    await using d = tempDir();
    const { ws, cfg } = site(d.path);
    const started = await run(
      [
        "call",
        "task",
        JSON.stringify({ objective: objective(true), kind: "scout" }),
        "--background",
        "--config",
        cfg,
        "--allow-read",
        "--approve",
        "task",
      ],
      { cwd: ws, env: ENV },
    );
    const id = json(started).task_id as string;
    const waited = await run(["tasks", "wait", id], { cwd: ws, env: ENV });
    const views = [started.stdout, waited.stdout, waited.stderr];
    for (const args of [
      ["tasks", "status", id],
      ["tasks", "logs", id],
      ["tasks", "list"],
      ["tasks", "list", "--json"],
      ["log", "--json"],
    ]) {
      const r = await run(args, { cwd: ws });
      views.push(r.stdout, r.stderr);
    }
    const status = json(await run(["tasks", "status", id], { cwd: ws }));
    expect(JSON.stringify(status)).toContain("the key is [REDACTED]");
    expect((await run(["tasks", "logs", id], { cwd: ws })).stdout).toContain("[REDACTED]");
    expect(views.filter((v) => v.includes(CANARY))).toEqual([]);
    expect(holding(join(ws, ".toolgate"))).toEqual([]);
  }, 60_000);
});
