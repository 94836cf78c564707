// dev_check's CI log through dist/toolgate. Under GitHub Actions: each gate a group holding its
// output, which cannot issue workflow commands of its own; a ✓/✗ line per gate; the failed gate's
// annotation at the first file:line of the repository its output names; a Markdown table appended
// to GITHUB_STEP_SUMMARY; stdout still the one JSON result. Under another CI: one plain line a gate.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { git } from "../fixtures/gates/make-repo.ts";
import { BIN, json, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const GRANT = ["--allow-run=bash,git", "--approve", "dev_check"];

function repo(path: string): string {
  const ws = join(path, "ws");
  mkdirSync(join(ws, "script"), { recursive: true });
  mkdirSync(join(ws, "src"));
  writeFileSync(join(ws, "src", "a.ts"), "export const a = 1;\n");
  writeFileSync(
    join(ws, "script", "check-lint.sh"),
    [
      'echo "checking src"',
      "echo '::warning::planted by the gate'",
      'echo "src/a.ts:3:5: error: boom" >&2',
      "exit 1",
    ].join("\n"),
  );
  writeFileSync(join(ws, "script", "check-types.sh"), "echo 'types fine'\n");
  writeFileSync(join(ws, ".gitignore"), ".toolgate/\n");
  git(ws, "init", "-q", "-b", "main");
  git(ws, "add", "-A");
  git(ws, "commit", "-q", "-m", "fixture");
  return ws;
}

describe("dev_check on a CI log", () => {
  test("GitHub Actions: groups, fenced output, verdict lines, the annotation at the named place, the step summary", async () => {
    await using d = tempDir();
    const ws = repo(d.path);
    const summary = join(d.path, "summary.md");
    writeFileSync(summary, "earlier step\n");
    const r = await run(["call", "dev_check", '{"gate":"all"}', ...GRANT], {
      cwd: ws,
      env: { CI: "true", GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary },
    });
    expect(r.code).toBe(1);
    expect(r.stdout.trim().split("\n").length).toBe(1);
    expect(json(r).error_code).toBe("dev_check.failed");
    const lines = r.stderr.split("\n");
    const lint = lines.indexOf("::group::dev_check: lint (1 of 2)");
    const token = lines[lint + 1]!.replace("::stop-commands::", "");
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    const body = lines.slice(lint + 2, lines.indexOf(`::${token}::`));
    // The gate's own workflow command sits inside the fence, where the runner does not act on it.
    expect(body.sort()).toEqual(["::warning::planted by the gate", "checking src", "src/a.ts:3:5: error: boom"]);
    expect(lines[lines.indexOf(`::${token}::`) + 1]).toBe("::endgroup::");
    expect(lines).toContainEqual(expect.stringMatching(/^dev_check: ✗ lint failed \(exit code 1\) in \d+\.\d s$/));
    expect(lines).toContain("::group::dev_check: types (2 of 2)");
    expect(lines).toContainEqual(expect.stringMatching(/^dev_check: ✓ types passed in \d+\.\d s$/));
    const errors = lines.filter((l) => l.startsWith("::error"));
    expect(errors.length).toBe(1);
    expect(errors[0]).toStartWith(
      "::error file=src/a.ts,line=3,col=5,title=dev_check%3A gate lint failed::exit code 1",
    );
    const md = readFileSync(summary, "utf8");
    expect(md).toStartWith("earlier step\n### dev_check: 1 of 2 gates failed\n");
    expect(md).toContain("| `lint` | ❌ failed (exit code 1) |");
    expect(md).toContain("| `types` | ✅ passed |");
    expect(md).toContain("src/a.ts:3:5: error: boom");
  }, 60_000);

  test("a step summary path that is a symlink is not followed: the file it names is left as it was", async () => {
    await using d = tempDir();
    const ws = repo(d.path);
    const victim = join(d.path, "victim.txt");
    writeFileSync(victim, "keep\n");
    const summary = join(d.path, "summary.md");
    symlinkSync(victim, summary);
    const r = await run(["call", "dev_check", '{"gate":"types"}', ...GRANT], {
      cwd: ws,
      env: { CI: "true", GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary },
    });
    expect(r.code).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe("keep\n");
  }, 60_000);

  test("another CI: one plain line a gate, no workflow commands, no summary", async () => {
    await using d = tempDir();
    const ws = repo(d.path);
    const summary = join(d.path, "summary.md");
    const r = await run(["call", "dev_check", '{"gate":"all"}', ...GRANT], {
      cwd: ws,
      env: { CI: "true", GITHUB_STEP_SUMMARY: summary },
    });
    expect(r.code).toBe(1);
    const lines = r.stderr.split("\n");
    expect(lines.filter((l) => l.startsWith("dev_check: "))).toEqual([
      expect.stringMatching(/^dev_check: ✗ lint failed \(exit code 1\) in \d+\.\d s$/),
      expect.stringMatching(/^dev_check: ✓ types passed in \d+\.\d s$/),
    ]);
    expect(lines.filter((l) => l.startsWith("::"))).toEqual([]);
    expect(existsSync(summary)).toBe(false);
  }, 60_000);
});
