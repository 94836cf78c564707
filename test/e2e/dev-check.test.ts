// dev_check end to end against dist/toolgate on a fixture repository: the CI shape (exit code,
// exactly one JSON result on stdout, ::error annotations on stderr under GITHUB_ACTIONS=true,
// a JUnit report that parses), the hanging gate stopped, no copy left behind.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { extraWorktrees, fixtureRepo } from "../fixtures/gates/make-repo.ts";
import { parseXml } from "../fixtures/gates/xml.ts";
import { gone } from "../launcher/support.ts";
import { BIN, json, run } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

const GRANT = ["--allow-run=bash,git", "--approve", "dev_check"];
const copiesIn = (repo: string) => {
  const dir = join(repo, ".toolgate", "worktrees");
  return existsSync(dir) ? readdirSync(dir) : [];
};

describe("dev_check through the binary", () => {
  test("one passing gate: exit 0, one JSON line", async () => {
    await using repo = fixtureRepo();
    const r = await run(["call", "dev_check", '{"gate":"pass"}', ...GRANT], { cwd: repo.path });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split("\n").length).toBe(1);
    expect(json(r).payload).toMatchObject({
      passed: 1,
      failed: 0,
      gates: [{ name: "pass", status: "passed", exitCode: 0 }],
    });
  });

  test("all, in GitHub Actions: exit 1, annotations on stderr, JUnit written, hanging gate stopped, copies gone", async () => {
    await using repo = fixtureRepo();
    writeFileSync(join(repo.path, "toolgate.json"), '{"gates":{"timeout_secs":0.5}}');
    const r = await run(["call", "dev_check", '{"gate":"all","junit":"out/junit.xml"}', ...GRANT, "--allow-write"], {
      cwd: repo.path,
      env: { GITHUB_ACTIONS: "true" },
    });
    expect(r.code).toBe(1);
    // stdout: exactly the one result; the annotations are not in it.
    expect(r.stdout.trim().split("\n").length).toBe(1);
    const out = json(r);
    expect(out).toMatchObject({
      status: "failed",
      tool: "dev_check",
      error_code: "dev_check.failed",
      details: { passed: 2, failed: 2, junit: "out/junit.xml", sandbox: "off" },
    });
    expect(out.message).toBe(
      "2 of 4 gates failed: fail (exit code 3), hang (timeout after 0.5 s); their tails are in details",
    );
    const annotations = r.stderr.split("\n").filter((l) => l.startsWith("::error"));
    expect(annotations.map((l) => l.slice(0, l.indexOf("::", 2) + 2))).toEqual([
      "::error file=script/check-fail.sh,title=dev_check%3A gate fail failed::",
      "::error file=script/check-hang.sh,title=dev_check%3A gate hang failed::",
    ]);
    const hang = out.details.gates.find((g: any) => g.name === "hang");
    const pids = [...hang.stdout.tail.matchAll(/^pid (\d+)$/gm)].map((m: RegExpMatchArray) => Number(m[1]));
    expect(pids.length).toBe(2);
    expect(pids.every(gone)).toBe(true);
    expect(copiesIn(repo.path)).toEqual([]);
    expect(extraWorktrees(repo.path)).toBe(0);

    const suite = parseXml(readFileSync(join(repo.path, "out", "junit.xml"), "utf8")).children[0]!;
    expect(suite.children.map((t) => [t.attrs.name, t.children.some((c) => c.name === "failure")])).toEqual([
      ["fail", true],
      ["hang", true],
      ["pass", false],
      ["tree", false],
    ]);
  });

  test("the config's annotations switch stays off outside GitHub Actions", async () => {
    await using repo = fixtureRepo({ changes: false });
    const r = await run(["call", "dev_check", '{"gate":"fail"}', ...GRANT], { cwd: repo.path });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain("::error");
    expect(r.stderr).toContain("dev_check.failed: 1 of 1 gates failed: fail (exit code 3)");
  });

  test("an unknown gate: the list of gates, exit 1, nothing copied", async () => {
    await using repo = fixtureRepo({ changes: false });
    const r = await run(["call", "dev_check", '{"gate":"typo"}', ...GRANT], { cwd: repo.path });
    expect([r.code, json(r).error_code, json(r).details]).toEqual([
      1,
      "dev_check.unknown_gate",
      { gates: ["fail", "hang", "pass", "tree"] },
    ]);
    expect(existsSync(join(repo.path, ".toolgate", "worktrees"))).toBe(false);
  });

  test("the JUnit path needs a write grant (exit 4 before any gate runs)", async () => {
    await using repo = fixtureRepo({ changes: false });
    const r = await run(["call", "dev_check", '{"gate":"pass","junit":"j.xml"}', ...GRANT], { cwd: repo.path });
    expect([r.code, json(r).error_code]).toEqual([4, "permission.denied"]);
    expect(existsSync(join(repo.path, ".toolgate", "worktrees"))).toBe(false);
  });
});

test("in product mode the gate runs sandboxed in its copy: the copy is writable, the checkout's state folder is not", async () => {
  await using repo = fixtureRepo();
  writeFileSync(join(repo.path, "toolgate.json"), '{"sandbox":"product"}');
  writeFileSync(
    join(repo.path, "script", "check-writes.sh"),
    'echo x > in-copy.txt && echo copy-ok; echo x > "$(git rev-parse --path-format=absolute --git-common-dir)/../.toolgate/forged" 2>/dev/null || echo state-read-only\n',
  );
  const r = await run(["call", "dev_check", '{"gate":"writes"}', ...GRANT], { cwd: repo.path });
  expect(r.code).toBe(0);
  expect(json(r).payload).toMatchObject({
    sandbox: "product",
    gates: [{ stdout: { tail: "copy-ok\nstate-read-only\n" } }],
  });
  expect(existsSync(join(repo.path, ".toolgate", "forged"))).toBe(false);
  expect(copiesIn(repo.path)).toEqual([]);
});
