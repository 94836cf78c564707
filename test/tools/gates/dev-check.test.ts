// dev_check in process, through the real process runner, on a fixture git repository: passing,
// failing and hanging gates, what a gate sees of the working tree, the copy gone afterwards, the
// JUnit report, GitHub annotations, and every refusal.
// Full suite only: gates run as processes in copies of a git repository; a hanging one waits out its timeout.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ToolContext } from "../../../src/catalog/declare.ts";
import { processRunner } from "../../../src/runtime/processes.ts";
import devCheck from "../../../src/tools/gates/dev-check.ts";
import { annotation, findGates, junitXml, type GateOutcome } from "../../../src/tools/gates/report.ts";
import { extraWorktrees, fixtureRepo, git } from "../../fixtures/gates/make-repo.ts";
import { parseXml } from "../../fixtures/gates/xml.ts";
import { gone } from "../../launcher/support.ts";
import { tempDir, toolContext } from "../../helpers.ts";

function context(ws: string, gates: Record<string, unknown> = {}, lines: string[] = []): ToolContext {
  const signal = new AbortController().signal;
  const parentEnv = { GITHUB_ACTIONS: "true", AWS_SECRET_ACCESS_KEY: "x".repeat(20) };
  const processes = processRunner({
    parentEnv,
    stateDir: join(ws, ".toolgate"),
    sandboxMode: "off",
    sandbox: undefined,
    secrets: {},
    signal,
  });
  return toolContext(ws, {
    processes,
    signal,
    now: () => performance.now(),
    config: { gates },
    operator: (line) => void lines.push(line),
  });
}

const check = (ws: string, args: { gate: string; junit?: string }, gates?: Record<string, unknown>, lines?: string[]) =>
  devCheck.handler(args, context(ws, gates, lines)) as Promise<any>;

/** No copy is left: the worktrees folder is empty and git knows of no extra worktree. */
function expectNoCopies(repo: string) {
  const dir = join(repo, ".toolgate", "worktrees");
  expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  expect(extraWorktrees(repo)).toBe(0);
}

describe("dev_check", () => {
  test("a passing gate: passed, exit 0, duration, tails; the copy is removed", async () => {
    await using repo = fixtureRepo();
    const r = await check(repo.path, { gate: "pass" });
    expect(r.ok).toBe(true);
    expect(r.value).toEqual({
      gates: [
        {
          name: "pass",
          script: "script/check-pass.sh",
          status: "passed",
          exitCode: 0,
          ended: "exited",
          durationMs: r.value.gates[0].durationMs,
          stdout: { tail: "gate pass passed\n", bytes: 17, chars: 17, truncated: false },
          stderr: { tail: "", bytes: 0, chars: 0, truncated: false },
        },
      ],
      passed: 1,
      failed: 0,
      sandbox: "off",
    });
    expectNoCopies(repo.path);
  });

  test("the gate sees HEAD plus every uncommitted change, in a copy without the state folder or ignored files", async () => {
    await using repo = fixtureRepo();
    mkdirSync(join(repo.path, ".toolgate"), { recursive: true });
    writeFileSync(join(repo.path, ".toolgate", "state.db"), "not for gates");
    const r = await check(repo.path, { gate: "tree" });
    expect(r.value.gates[0].stdout.tail).toBe(
      [
        "tracked: v2, uncommitted",
        "staged: staged, never committed",
        "untracked: untracked",
        "deleted: gone",
        "link: tracked.txt",
        "state: absent",
        "ignored: absent",
        "cwd: a copy",
        "",
      ].join("\n"),
    );
    // What the gate wrote stayed in its copy; the working tree is as it was.
    expect(existsSync(join(repo.path, "left-behind.txt"))).toBe(false);
    expect(readFileSync(join(repo.path, "tracked.txt"), "utf8")).toBe("v2, uncommitted\n");
    expect(git(repo.path, "status", "--porcelain").split("\n").filter(Boolean).sort()).toEqual(
      ["?? .toolgate/", "?? link", "?? untracked.txt", "A  staged-new.txt", " D deleted.txt", " M tracked.txt"].sort(),
    );
    expectNoCopies(repo.path);
  });

  test("a failing gate fails the call with its code and tails", async () => {
    await using repo = fixtureRepo();
    const r = await check(repo.path, { gate: "fail" });
    expect(r.ok).toBe(false);
    expect(r.refusal.code).toBe("dev_check.failed");
    expect(r.refusal.message).toBe("1 of 1 gates failed: fail (exit code 3); their tails are in details");
    expect(r.refusal.details).toMatchObject({
      passed: 0,
      failed: 1,
      gates: [
        {
          name: "fail",
          status: "failed",
          exitCode: 3,
          ended: "exited",
          stdout: { tail: "checking...\n" },
          stderr: { tail: "fail: something is broken\n" },
        },
      ],
    });
    expectNoCopies(repo.path);
  });

  test("a hanging gate times out, its whole tree is ended and its copy removed", async () => {
    await using repo = fixtureRepo();
    const r = await check(repo.path, { gate: "hang" }, { timeout_secs: 0.5 });
    expect(r.refusal.code).toBe("dev_check.failed");
    expect(r.refusal.message).toContain("hang (timeout after 0.5 s)");
    const gate = r.refusal.details.gates[0];
    expect(gate).toMatchObject({ status: "failed", exitCode: null, ended: "timeout" });
    const pids = [...gate.stdout.tail.matchAll(/^pid (\d+)$/gm)].map((m: RegExpMatchArray) => Number(m[1]));
    expect(pids.length).toBe(2);
    expect(pids.every(gone)).toBe(true);
    expectNoCopies(repo.path);
  });

  test("all runs every gate in name order, each in its own copy; JUnit and annotations report the failures", async () => {
    await using repo = fixtureRepo();
    const lines: string[] = [];
    const r = await check(
      repo.path,
      { gate: "all", junit: "reports/junit.xml" },
      { timeout_secs: 0.5, annotations: true },
      lines,
    );
    expect(r.refusal.code).toBe("dev_check.failed");
    const d = r.refusal.details;
    expect(d.gates.map((g: any) => [g.name, g.status])).toEqual([
      ["fail", "failed"],
      ["hang", "failed"],
      ["pass", "passed"],
      ["tree", "passed"],
    ]);
    expect([d.passed, d.failed, d.junit]).toEqual([2, 2, "reports/junit.xml"]);
    expectNoCopies(repo.path);

    const doc = parseXml(readFileSync(join(repo.path, "reports", "junit.xml"), "utf8"));
    expect(doc.name).toBe("testsuites");
    expect(doc.attrs).toMatchObject({ tests: "4", failures: "2", errors: "0" });
    const suite = doc.children[0]!;
    expect([suite.name, suite.attrs.tests, suite.attrs.failures]).toEqual(["testsuite", "4", "2"]);
    expect(suite.children.map((c) => [c.name, c.attrs.name, c.attrs.file, c.children.map((x) => x.name)])).toEqual([
      ["testcase", "fail", "script/check-fail.sh", ["failure", "system-out", "system-err"]],
      ["testcase", "hang", "script/check-hang.sh", ["failure", "system-out"]],
      ["testcase", "pass", "script/check-pass.sh", ["system-out"]],
      ["testcase", "tree", "script/check-tree.sh", ["system-out"]],
    ]);
    expect(suite.children[0]!.children[0]!.attrs.message).toBe("gate fail failed: exit code 3");
    expect(suite.children[0]!.children[0]!.text).toBe("fail: something is broken\n");
    expect(Number(suite.children[2]!.attrs.time)).toBeGreaterThanOrEqual(0);

    expect(lines).toEqual([
      "::error file=script/check-fail.sh,title=dev_check%3A gate fail failed::exit code 3%0Afail: something is broken",
      expect.stringMatching(
        /^::error file=script\/check-hang\.sh,title=dev_check%3A gate hang failed::timeout after 0\.5 s%0Apid \d+%0Apid \d+$/,
      ),
    ]);
  });

  test("without gates.annotations nothing is written for the operator", async () => {
    await using repo = fixtureRepo({ changes: false });
    const lines: string[] = [];
    await check(repo.path, { gate: "fail" }, {}, lines);
    expect(lines).toEqual([]);
  });

  test("gates.directory and gates.pattern choose the gates; a subfolder of the repository works", async () => {
    await using repo = fixtureRepo({ changes: false });
    mkdirSync(join(repo.path, "pkg", "ci"), { recursive: true });
    writeFileSync(join(repo.path, "pkg", "ci", "lint.gate"), 'echo "lint in $(basename "$PWD")"\n');
    const r = await check(repo.path, { gate: "lint" }, { directory: "pkg", pattern: "ci/*.gate" });
    expect(r.value.gates[0]).toMatchObject({
      name: "lint",
      script: "ci/lint.gate",
      status: "passed",
      stdout: { tail: "lint in pkg\n" },
    });
    expectNoCopies(repo.path);
  });
});

describe("refusals", () => {
  test("an unknown gate is refused with the list of gates", async () => {
    await using repo = fixtureRepo({ changes: false });
    expect(await check(repo.path, { gate: "nope" })).toEqual({
      ok: false,
      refusal: {
        code: "dev_check.unknown_gate",
        message: 'no gate named "nope"; the gates are: fail, hang, pass, tree (or "all")',
        details: { gates: ["fail", "hang", "pass", "tree"] },
      },
    });
  });

  test.each([
    ["pas", "pass"],
    ["Tree", "tree"],
    ["al", "all"],
  ])("an unknown gate %p near one is refused naming it (%p), nothing run", async (gate, near) => {
    await using repo = fixtureRepo({ changes: false });
    expect(await check(repo.path, { gate })).toEqual({
      ok: false,
      refusal: {
        code: "dev_check.unknown_gate",
        message: `no gate named "${gate}"; the gates are: fail, hang, pass, tree (or "all"); did you mean "${near}"?`,
        details: { gates: ["fail", "hang", "pass", "tree"], did_you_mean: near },
      },
    });
    expectNoCopies(repo.path);
  });

  test("no gates at all is refused, naming the pattern", async () => {
    await using dir = tempDir();
    expect(await check(dir.path, { gate: "all" })).toMatchObject({
      ok: false,
      refusal: { code: "dev_check.no_gates" },
    });
  });

  test("outside a git repository, and in one without a commit, the copy cannot be made", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, "script"));
    writeFileSync(join(dir.path, "script", "check-x.sh"), "true\n");
    expect(await check(dir.path, { gate: "x" })).toMatchObject({
      ok: false,
      refusal: { code: "dev_check.not_a_repository" },
    });
    git(dir.path, "init", "-q");
    expect(await check(dir.path, { gate: "x" })).toMatchObject({ ok: false, refusal: { code: "dev_check.no_commit" } });
  });

  test.each(["script/*-*.sh", "script/check-?.sh", "*/check.sh", "../check-*.sh", "script/check.sh"])(
    "an unusable pattern %p is refused",
    (pattern) => {
      expect(findGates("/nonexistent", pattern)).toMatchObject({
        ok: false,
        refusal: { code: "dev_check.pattern_invalid" },
      });
    },
  );

  test("needs run:bash and run:git, and write for the JUnit file (with its missing folders)", async () => {
    await using dir = tempDir();
    const nctx = { workspace: dir.path, scratch: dir.path, stateDir: join(dir.path, ".toolgate"), skillDirs: [] };
    expect(devCheck.needs({ gate: "all" }, nctx)).toEqual({
      ok: true,
      value: [
        { kind: "run", value: "bash" },
        { kind: "run", value: "git" },
      ],
    });
    expect(devCheck.needs({ gate: "all", junit: "out/j.xml" }, nctx)).toEqual({
      ok: true,
      value: [
        { kind: "run", value: "bash" },
        { kind: "run", value: "git" },
        { kind: "write", value: join(dir.path, "out") },
        { kind: "write", value: join(dir.path, "out", "j.xml") },
      ],
    });
    expect(devCheck.needs({ gate: "all", junit: "../j.xml" }, nctx)).toMatchObject({
      ok: false,
      refusal: { code: "path.outside_workspace" },
    });
  });
});

describe("reports", () => {
  const outcome = (o: Partial<GateOutcome>): GateOutcome => ({
    name: "g",
    script: "script/check-g.sh",
    passed: false,
    how: "exit code 1",
    durationMs: 1500,
    stdout: "",
    stderr: "",
    ...o,
  });

  test("JUnit escapes markup and drops what XML 1.0 cannot hold", () => {
    const xml = junitXml([outcome({ name: 'a<b>&"c"', stderr: "<error> & \u0001 'q'\n" })]);
    const tc = parseXml(xml).children[0]!.children[0]!;
    expect(tc.attrs.name).toBe('a<b>&"c"');
    expect(tc.attrs.time).toBe("1.500");
    expect(tc.children[0]!.text).toBe("<error> & \ufffd 'q'\n");
  });

  test("annotations keep to one line and escape the workflow command syntax", () => {
    expect(annotation(outcome({ name: "x,y", stdout: "100% done\r\nnext" }), "a:b/check.sh")).toBe(
      "::error file=a%3Ab/check.sh,title=dev_check%3A gate x%2Cy failed::exit code 1%0A100%25 done%0D%0Anext",
    );
    const many = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n");
    expect(annotation(outcome({ stderr: many }), null)).toBe(
      `::error title=dev_check%3A gate g failed::exit code 1%0A${Array.from({ length: 20 }, (_, i) => `line ${i + 10}`).join("%0A")}`,
    );
  });
});
