// Control files are protected where discovery would find them. The attacker is a
// product-sandboxed `bash` call through dist/toolgate whose config the user passes with --config
// (so none lies in the workspace). At the root, the config and lock names cannot be created (held
// by read-only placeholders while the command runs). Deeper, no mount can keep a name free at every
// depth, so discovery holds instead: the sub/toolgate.json the command did write is not used by a
// later plain run from sub/ (exit 5, naming it and the workspace it lies in). As root and nobody.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../fixtures/gates/make-repo.ts";
import { BIN, json, run, runUnprivileged, chownToNobody, tempDir, type RunResult } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

const ATTACK = [
  "echo '{}' > toolgate.json 2>/dev/null && echo ESCAPE:config",
  "echo '{}' > toolgate.lock 2>/dev/null && echo ESCAPE:lock",
  "mkdir -p tools/x 2>/dev/null && echo ESCAPE:tools",
  "echo '[core]' >> .git/config 2>/dev/null && echo ESCAPE:git",
  // Deeper the command can write them: what matters is that nothing uses them (below).
  `mkdir -p sub && echo '{"sandbox":"off"}' > sub/toolgate.json && echo planted`,
  "echo ran",
].join("\n");
const WHO = ["root", "nobody"] as const;

/** A committed workspace and, beside it, the user's own config asking for the product sandbox. */
function setup(path: string, who: (typeof WHO)[number]): { ws: string; config: string } {
  const ws = join(path, "ws");
  mkdirSync(ws);
  writeFileSync(join(ws, "a.txt"), "a\n");
  git(ws, "init", "-q", "-b", "main");
  git(ws, "add", "-A");
  git(ws, "commit", "-q", "-m", "fixture");
  const config = join(path, "mine.json");
  writeFileSync(config, '{"sandbox":"product"}\n');
  if (who === "nobody") {
    chmodSync(path, 0o755);
    chmodSync(config, 0o644);
    chownToNobody(ws);
  }
  return { ws, config };
}

const as = (who: (typeof WHO)[number], args: string[], cwd: string, home: string): Promise<RunResult> =>
  who === "root" ? run(args, { cwd, env: { HOME: home } }) : runUnprivileged(args, { cwd });

describe("control files in a product sandbox whose config lies outside the workspace", () => {
  test.each(WHO)(
    "as %s: the root's config and lock names cannot be created; a sub/toolgate.json it wrote is not used from sub/",
    async (who) => {
      await using dir = tempDir();
      const { ws, config } = setup(dir.path, who);
      const gitConfig = readFileSync(join(ws, ".git", "config"), "utf8");
      const r = await as(
        who,
        [
          "call",
          "bash",
          JSON.stringify({ command: ATTACK }),
          "--allow-run=bash",
          "--approve",
          "bash",
          "--config",
          config,
        ],
        ws,
        dir.path,
      );
      const out = json(r);
      expect(out).toMatchObject({ status: "success", payload: { sandbox: "product", exitCode: 0 } });
      expect(out.payload.stdout.tail).toBe("planted\nran\n");
      expect([
        existsSync(join(ws, "toolgate.json")),
        existsSync(join(ws, "toolgate.lock")),
        existsSync(join(ws, "tools")),
      ]).toEqual([false, false, false]);
      expect(readFileSync(join(ws, ".git", "config"), "utf8")).toBe(gitConfig);

      // A plain run from sub/ finds sub/toolgate.json first: it asks for no sandbox, and is not used.
      const later = await as(
        who,
        ["call", "bash", JSON.stringify({ command: "touch ran-unsandboxed" }), "--allow-run=bash", "--approve", "bash"],
        join(ws, "sub"),
        dir.path,
      );
      expect([later.code, later.stdout]).toEqual([5, ""]);
      expect(later.stderr).toContain(
        `${join(ws, "sub", "toolgate.json")} is not trusted, and it lies inside ${ws}, a workspace toolgate has run commands in (${join(ws, ".toolgate")})`,
      );
      expect(later.stderr).toContain(`toolgate trust ${join(ws, "sub", "toolgate.json")}`);
      expect(existsSync(join(ws, "sub", "ran-unsandboxed"))).toBe(false);
    },
  );

  test("once the user trusts it, a config inside a used workspace is used", async () => {
    await using dir = tempDir();
    const ws = join(dir.path, "ws");
    mkdirSync(join(ws, ".toolgate"), { recursive: true });
    mkdirSync(join(ws, "sub"));
    writeFileSync(join(ws, "sub", "toolgate.json"), '{"sandbox":"product"}\n');
    const call = ["call", "bash", JSON.stringify({ command: "echo ran" }), "--allow-run=bash", "--approve", "bash"];
    const env = { HOME: dir.path, XDG_STATE_HOME: join(dir.path, "state") };
    expect((await run(call, { cwd: join(ws, "sub"), env })).code).toBe(5);
    expect((await run(["trust"], { cwd: join(ws, "sub"), env })).code).toBe(0);
    const r = await run(call, { cwd: join(ws, "sub"), env });
    expect(json(r)).toMatchObject({ status: "success", payload: { sandbox: "product", stdout: { tail: "ran\n" } } });
  });
});
