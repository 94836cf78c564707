// `task` was declared required/irreversible; the catalog says
// never/read — a child is held by its sandbox, its worktree and its narrowed catalog (a write
// child's tree is read by git sealed, test/security/delegate-git.test.ts), and the one writer of
// the checkout is apply_change, which stays required/irreversible.
import { beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../fixtures/gates/make-repo.ts";
import { BIN, json, ROOT, run, tempDir } from "../helpers.ts";

const AGENT = join(ROOT, "test", "fixtures", "delegate", "agent.ts");

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

test("task runs with no approval (never, read); apply_change still needs one (required, irreversible)", async () => {
  await using d = tempDir();
  const ws = join(d.path, "ws");
  mkdirSync(ws);
  writeFileSync(join(ws, "a.txt"), "one\n");
  writeFileSync(join(ws, ".gitignore"), ".toolgate/\n");
  git(ws, "init", "-q", "-b", "main");
  git(ws, "add", "-A");
  git(ws, "commit", "-q", "-m", "fixture");
  const cfg = join(d.path, "cfg.json");
  writeFileSync(
    cfg,
    JSON.stringify({
      workspace: ws,
      delegation: {
        command: [process.execPath, AGENT, "{objective}", "{server}"],
        worktree_root: join(d.path, "worktrees"),
        timeout_secs: 60,
      },
    }),
  );
  const listed = (await run(["tools", "--json", "--config", cfg], { cwd: ws })).stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(
    listed.filter((t) => t.name === "task" || t.name === "apply_change").map((t) => [t.name, t.approval, t.effect]),
  ).toEqual([
    ["apply_change", "required", "irreversible"],
    ["task", "never", "read"],
  ]);
  // No --approve, nobody to ask (CI): the task runs; its write child's change waits for apply_change.
  const objective = JSON.stringify({ calls: [{ tool: "file_write", args: { path: "b.txt", content: "b\n" } }] });
  const t = await run(["call", "task", JSON.stringify({ objective, kind: "write" }), "--config", cfg, "--allow-read"], {
    cwd: ws,
  });
  expect([t.code, json(t).payload.status, json(t).payload.change.files]).toEqual([
    0,
    "done",
    [{ path: "b.txt", added: 1, deleted: 0 }],
  ]);
  const a = await run(
    [
      "call",
      "apply_change",
      JSON.stringify({ change_id: json(t).payload.change.change_id }),
      "--config",
      cfg,
      "--allow-write",
    ],
    { cwd: ws },
  );
  expect([a.code, json(a).error_code]).toEqual([4, "approval.required"]);
  expect(existsSync(join(ws, "b.txt"))).toBe(false);
  const ok = await run(
    [
      "call",
      "apply_change",
      JSON.stringify({ change_id: json(t).payload.change.change_id }),
      "--config",
      cfg,
      "--allow-write",
      "--approve",
      "apply_change",
    ],
    { cwd: ws },
  );
  expect([ok.code, readFileSync(join(ws, "b.txt"), "utf8")]).toEqual([0, "b\n"]);
}, 60_000);
