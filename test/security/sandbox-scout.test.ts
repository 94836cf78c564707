// A scout child (task kind "scout", no approval needed beyond the task, --allow-read in the parent)
// is a prompt-injected agent under the product sandbox. Its working folder is the checkout, which
// must stay read-only to it: it tries to plant what runs on the host later (a git fsmonitor, a
// hook), to turn the sandbox off in the config, to add an authored tool, to write the state folder
// and an ordinary file. Nothing it tries lands, and the user's next `git status` runs nothing.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../fixtures/gates/make-repo.ts";
import { BIN, chownToNobody, json, run, runUnprivileged, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

/** Each attempt prints ESCAPE:<what> only if the write went through. */
const agent = (marker: string) =>
  [
    `echo pwned >> README.md 2>/dev/null && echo ESCAPE:readme`,
    `git config core.fsmonitor "id > ${marker}" 2>/dev/null && echo ESCAPE:fsmonitor`,
    `{ printf '#!/bin/sh\\nid > ${marker}\\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout; } 2>/dev/null && echo ESCAPE:hook`,
    `echo '{"sandbox":"off"}' > toolgate.json 2>/dev/null && echo ESCAPE:config`,
    `mkdir -p tools/evil 2>/dev/null && echo ESCAPE:tools`,
    `mkdir -p .toolgate/x 2>/dev/null && echo ESCAPE:state`,
    `echo '{}' > toolgate.lock 2>/dev/null && echo ESCAPE:lock`,
    `echo '{"sandbox":"off"}' > sub/toolgate.json 2>/dev/null && echo ESCAPE:nested`,
    `echo '{"summary":"tried"}'`,
  ].join("\n");

async function attack(who: "root" | "nobody") {
  await using d = tempDir();
  chmodSync(d.path, 0o755);
  const ws = join(d.path, "ws");
  const out = join(d.path, "out");
  mkdirSync(join(ws, "sub"), { recursive: true });
  mkdirSync(out);
  chmodSync(out, 0o777);
  writeFileSync(join(ws, "README.md"), "hello\n");
  writeFileSync(join(ws, "sub", "a.txt"), "a\n");
  writeFileSync(join(ws, "toolgate.json"), '{"sandbox":"product"}\n');
  writeFileSync(join(ws, ".gitignore"), ".toolgate/\n");
  git(ws, "init", "-q", "-b", "main");
  git(ws, "add", "-A");
  git(ws, "commit", "-q", "-m", "fixture");
  const before = snapshot(ws);
  const marker = join(out, "marker");
  const cfg = join(d.path, "cfg.json");
  const command = ["bash", "-c", agent(marker), "agent", "{objective}", "{server}"];
  writeFileSync(cfg, JSON.stringify({ workspace: ws, sandbox: "product", delegation: { command, timeout_secs: 60 } }));
  const args = [
    "call",
    "task",
    JSON.stringify({ objective: "look around", kind: "scout" }),
    "--config",
    cfg,
    "--allow-read",
    "--approve",
    "task",
  ];
  if (who === "nobody") chownToNobody(d.path);
  const r =
    who === "root" ? await run(args, { cwd: ws, env: { HOME: d.path } }) : await runUnprivileged(args, { cwd: ws });
  // The user's next git command in the checkout, on the host.
  const status = Bun.spawnSync(["git", "status", "--porcelain"], {
    cwd: ws,
    env: { PATH: "/usr/bin:/bin", HOME: d.path, GIT_CONFIG_NOSYSTEM: "1" },
  });
  const planted = existsSync(join(ws, ".toolgate", "x"));
  return {
    r,
    p: json(r).payload,
    before,
    after: snapshot(ws),
    planted,
    status: status.stdout.toString(),
    marker: existsSync(marker),
    out: readdirSync(out),
  };
}

/** What the checkout holds that decides what runs next, and one ordinary file. */
function snapshot(ws: string) {
  const read = (p: string) => (existsSync(join(ws, p)) ? readFileSync(join(ws, p), "utf8") : null);
  return {
    readme: read("README.md"),
    config: read("toolgate.json"),
    gitConfig: read(".git/config"),
    hooks: readdirSync(join(ws, ".git", "hooks")).filter((h) => !h.endsWith(".sample")),
    // toolgate's own state folder is made by the call; what the child tried to put in it is checked apart.
    top: readdirSync(ws)
      .filter((n) => n !== ".toolgate")
      .sort(),
    sub: readdirSync(join(ws, "sub")).sort(),
  };
}

describe.each(["root", "nobody"] as const)("as %s, a scout child under the product sandbox", (who) => {
  test("cannot write the checkout: fsmonitor, hook, config, tools, state folder and README stay as they were", async () => {
    const { r, p, before, after, planted, status, marker, out } = await attack(who);
    expect([r.code, p.status, p.summary]).toEqual([0, "done", "tried"]);
    // The child's own report: no attempt went through.
    expect(JSON.stringify(p)).not.toContain("ESCAPE:");
    expect(r.stderr).not.toContain("ESCAPE:");
    expect(after).toEqual(before);
    expect(planted).toBe(false);
    // git status on the host ran no planted command and sees nothing changed.
    expect([marker, out, status]).toEqual([false, [], ""]);
  }, 60_000);
});
