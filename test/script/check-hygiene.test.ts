// The hygiene gate (scripts/check-hygiene.sh): a shipped file that names an internal service, an
// endpoint of one or a credential fails it, named FILE:LINE; tests are not shipped; this
// repository's own tree passes.
// Full suite only: bash runs the gate, once over this whole repository.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../fixtures/gates/make-repo.ts";
import { ROOT, tempDir } from "../helpers.ts";

const GATE = join(ROOT, "scripts", "check-hygiene.sh");

function gate(cwd: string) {
  const p = Bun.spawnSync(["bash", GATE], { cwd, env: { PATH: "/usr/bin:/bin" }, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

function repo(path: string, files: Record<string, string>): string {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(path, name, ".."), { recursive: true });
    writeFileSync(join(path, name), text);
  }
  git(path, "init", "-q", "-b", "main");
  git(path, "add", "-A");
  return path;
}

describe("the hygiene gate", () => {
  test.each([
    [
      "an internal host in the docs",
      "docs/a.md",
      "send to http://billing.corp:8080/api\n",
      "docs/a.md:1: internal host",
    ],
    [
      "an internal endpoint in the source",
      "src/rails.ts",
      'const BANK = "https://bank.svc.internal/v1";\n',
      "src/rails.ts:1: internal host",
    ],
    ["a private address", "README.md", "x\ncurl http://10.2.3.4/metrics\n", "README.md:2: private address"],
    ["an AWS key", "skills/s/SKILL.md", "key AKIA" + "ABCDEFGHIJKLMNOP\n", "skills/s/SKILL.md:1: credential"],
    [
      "a URL with a password",
      "scripts/x.ts",
      "// https://bot:hunter2@git.example.com/x\n",
      "scripts/x.ts:1: credential",
    ],
    ["a private key", "docs/k.md", "-----BEGIN " + "PRIVATE KEY-----\n", "docs/k.md:1: private key"],
  ])("%s fails it, named FILE:LINE", async (_what, file, text, line) => {
    await using d = tempDir();
    const r = gate(
      repo(d.path, { [file]: text, "docs/fine.md": "see http://localhost:4318 and https://tools.example.com\n" }),
    );
    expect(r.code).toBe(1);
    expect(r.out.trim().split("\n")).toEqual([line]);
    expect(r.err).toContain("take it from the environment or the config instead");
  });

  test("example domains, loopback and tests pass; so does this repository's own tree", async () => {
    await using d = tempDir();
    const clean = repo(d.path, {
      "docs/a.md": "http://127.0.0.1:8808/mcp https://id.example.test http://otel-collector.example:4318\n",
      "test/x.test.ts": 'const key = "AKIA' + 'ABCDEFGHIJKLMNOP";\n',
    });
    expect(gate(clean)).toEqual({
      code: 0,
      out: "hygiene: no internal service, endpoint or credential in a shipped file\n",
      err: "",
    });
    expect(gate(ROOT).code).toBe(0);
  });
});
