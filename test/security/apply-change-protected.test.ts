// apply_change protected less than the file tools. A write child (a fake agent
// writing its worktree directly, past its own file tools) leaves toolgate's control files where
// discovery would find them, a file in the state folder, and (when the workspace is a folder of the
// repository) a file above the workspace. Control files are protected where they
// would be; apply_change judges every path with file_write's one predicate and writes nothing.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../fixtures/gates/make-repo.ts";
import { BIN, json, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

/** A repository at `top` (a.txt) whose workspace is `top/<sub>`, a trusted config naming `script` as the child agent (bash, in its worktree). */
function site(root: string, sub: string, script: string) {
  const top = join(root, "repo");
  const ws = join(top, sub);
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, "a.txt"), "one\n");
  git(top, "init", "-q", "-b", "main");
  git(top, "add", "-A");
  git(top, "commit", "-q", "-m", "fixture");
  const cfg = join(root, "cfg.json");
  const command = ["bash", "-c", `${script}\necho '{"summary":"wrote"}'`, "agent", "{objective}", "{server}"];
  writeFileSync(
    cfg,
    JSON.stringify({
      workspace: ws,
      delegation: { command, worktree_root: join(root, "worktrees"), timeout_secs: 60 },
    }),
  );
  return { top, ws, cfg };
}

async function taskThenApply(ws: string, cfg: string) {
  const t = await run(
    [
      "call",
      "task",
      JSON.stringify({ objective: "write", kind: "write" }),
      "--config",
      cfg,
      "--allow-read",
      "--approve",
      "task",
    ],
    { cwd: ws },
  );
  const change = json(t).payload.change;
  const a = await run(
    [
      "call",
      "apply_change",
      JSON.stringify({ change_id: change.change_id }),
      "--config",
      cfg,
      "--allow-write",
      "--approve",
      "apply_change",
    ],
    { cwd: ws },
  );
  return { files: (change.files as { path: string }[]).map((f) => f.path), applied: json(a) };
}

/** Every file under `dir` (relative), .git and the state folder's own files left out. */
function tree(dir: string, rel = ""): string[] {
  return readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const p = rel === "" ? e.name : `${rel}/${e.name}`;
    if (p === ".git" || (rel === ".toolgate" && e.name !== "planted.txt")) return [];
    return e.isDirectory() ? tree(dir, p) : [p];
  });
}

describe("apply_change writes no path file_write would refuse", () => {
  test("nested config, lock, authored tool, state folder: refused change.protected, nothing written", async () => {
    await using d = tempDir();
    const planted = [
      "sub/toolgate.json",
      "Deep/er/TOOLGATE.JSON",
      "toolgate.lock",
      "tools/evil/tool.json",
      ".toolgate/planted.txt",
    ];
    const script = [
      "mkdir -p sub Deep/er tools/evil .toolgate",
      ...planted.map((p) => `echo '{}' > ${p}`),
      "echo fine > ok.txt",
    ].join("\n");
    const { ws, cfg } = site(d.path, ".", script);
    const before = tree(ws);
    const { files, applied } = await taskThenApply(ws, cfg);
    expect(files.sort()).toEqual([...planted, "ok.txt"].sort());
    expect([applied.status, applied.error_code, [...applied.details.files].sort()]).toEqual([
      "failed",
      "change.protected",
      [...planted].sort(),
    ]);
    expect(applied.details.why.find((w: string) => w.startsWith("sub/toolgate.json"))).toContain(
      "named like toolgate's own control file",
    );
    expect(tree(ws)).toEqual(before);
  }, 60_000);

  test("a file above the workspace (the repository's top lies above it): refused, nothing written there", async () => {
    await using d = tempDir();
    const { top, ws, cfg } = site(d.path, "ws", "echo out > outside.txt\necho in > ws/inside.txt");
    const { files, applied } = await taskThenApply(ws, cfg);
    expect(files.sort()).toEqual(["outside.txt", "ws/inside.txt"]);
    expect([applied.error_code, applied.details.files, applied.details.why]).toEqual([
      "change.protected",
      ["outside.txt"],
      ["outside.txt: outside the workspace"],
    ]);
    expect([existsSync(join(top, "outside.txt")), existsSync(join(ws, "inside.txt"))]).toEqual([false, false]);
  }, 60_000);
});

// A bare repository is a git folder without the name .git: a child that leaves `x/HEAD` beside
// `x/config` (core.fsmonitor naming a program) and `x/hooks/` in its tree would, once applied,
// have the next `git -C x status` run that program. Such a folder is protected as .git is.
describe("apply_change writes nothing into a folder git would take for a repository", () => {
  const bare = (dir: string, marker: string) => [
    `mkdir -p ${dir}/hooks ${dir}/objects ${dir}/refs/heads`,
    `printf 'ref: refs/heads/main\\n' > ${dir}/HEAD`,
    `printf '[core]\\n\\tbare = true\\n\\tfsmonitor = touch ${marker}\\n' > ${dir}/config`,
    `printf '#!/bin/sh\\ntouch ${marker}\\n' > ${dir}/hooks/pre-commit`,
    `echo x > ${dir}/objects/.keep`,
    `echo x > ${dir}/refs/heads/.keep`,
  ];

  test("a bare repository in the change (HEAD, config with core.fsmonitor, hooks/): refused change.protected, nothing written", async () => {
    await using d = tempDir();
    const marker = join(d.path, "fsmonitor-ran");
    const script = [...bare("vendor/x", marker), "echo fine > ok.txt"].join("\n");
    const { ws, cfg } = site(d.path, ".", script);
    const before = tree(ws);
    const { files, applied } = await taskThenApply(ws, cfg);
    const repo = [
      "vendor/x/HEAD",
      "vendor/x/config",
      "vendor/x/hooks/pre-commit",
      "vendor/x/objects/.keep",
      "vendor/x/refs/heads/.keep",
    ];
    expect(files.sort()).toEqual([...repo, "ok.txt"].sort());
    expect([applied.status, applied.error_code, [...applied.details.files].sort()]).toEqual([
      "failed",
      "change.protected",
      [...repo].sort(),
    ]);
    expect(applied.details.why[0]).toContain("inside vendor/x, which holds HEAD beside config, objects/ or refs/");
    expect(applied.message).toContain("a folder git would take for a repository");
    expect(tree(ws)).toEqual(before);
    expect(existsSync(marker)).toBe(false);
  }, 60_000);

  test.each([
    ["HEAD beside config", ["HEAD", "config"]],
    ["HEAD beside objects/", ["HEAD", "objects/pack/.keep"]],
    ["HEAD beside refs/, names in another case", ["head", "Refs/heads/main"]],
  ])(
    "%s in the change alone: refused",
    async (_name, names) => {
      await using d = tempDir();
      const script = [
        ...names.map((n) => `mkdir -p "$(dirname x/${n})" && echo x > x/${n}`),
        "echo fine > ok.txt",
      ].join("\n");
      const { ws, cfg } = site(d.path, ".", script);
      const { applied } = await taskThenApply(ws, cfg);
      expect([applied.error_code, [...applied.details.files].sort()]).toEqual([
        "change.protected",
        names.map((n) => `x/${n}`).sort(),
      ]);
    },
    60_000,
  );

  test("HEAD alone in the change, config already in the checkout's folder: refused", async () => {
    await using d = tempDir();
    const { ws, cfg } = site(d.path, ".", "echo 'ref: refs/heads/main' > x/HEAD");
    // The checkout's own x/config, committed before the task (the child's tree starts from it).
    mkdirSync(join(ws, "x"));
    writeFileSync(join(ws, "x", "config"), "[core]\n\tfsmonitor = true\n");
    git(ws, "add", "-A");
    git(ws, "commit", "-q", "-m", "x/config");
    const { files, applied } = await taskThenApply(ws, cfg);
    expect(files).toEqual(["x/HEAD"]);
    expect([applied.error_code, applied.details.files]).toEqual(["change.protected", ["x/HEAD"]]);
  }, 60_000);

  test("files named HEAD or config elsewhere, or a config/ folder beside HEAD, are written as any others", async () => {
    await using d = tempDir();
    const script = [
      "mkdir -p docs/config a b",
      "echo h > docs/HEAD",
      "echo c > docs/config/app.json",
      "echo h > a/HEAD",
      "echo c > b/config",
    ].join("\n");
    const { ws, cfg } = site(d.path, ".", script);
    const { applied } = await taskThenApply(ws, cfg);
    expect([applied.status, applied.payload?.status]).toEqual(["success", "applied"]);
    expect(
      tree(ws)
        .filter((p) => /^(docs|a|b)\//.test(p))
        .sort(),
    ).toEqual(["a/HEAD", "b/config", "docs/HEAD", "docs/config/app.json"]);
  }, 60_000);
});
