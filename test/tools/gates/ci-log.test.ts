// What dev_check writes for a CI log: the gate's group with its output fenced from workflow
// commands, the verdict line, the step summary's Markdown, and the first place of the repository a
// failed gate's output names.
import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { firstPlace, githubGroup, stepSummary, verdictLine } from "../../../src/tools/gates/ci-log.ts";
import type { GateOutcome } from "../../../src/tools/gates/report.ts";
import { tempDir } from "../../helpers.ts";

const gate = (over: Partial<GateOutcome> = {}): GateOutcome => ({
  name: "unit",
  script: "script/check-unit.sh",
  passed: true,
  how: "exit code 0",
  durationMs: 3210,
  stdout: "",
  stderr: "",
  ...over,
});

describe("the verdict line", () => {
  test.each([
    [gate(), "dev_check: ✓ unit passed in 3.2 s"],
    [gate({ passed: false, how: "exit code 1", durationMs: 420 }), "dev_check: ✗ unit failed (exit code 1) in 0.4 s"],
    [
      gate({ passed: false, how: "timeout after 600 s", durationMs: 600_000 }),
      "dev_check: ✗ unit failed (timeout after 600 s) in 600.0 s",
    ],
  ])("%#", (o, line) => expect(verdictLine(o)).toBe(line));
});

describe("a gate's group on a GitHub Actions log", () => {
  test("whole lines as they come, inside stop-commands with a token the output cannot know", () => {
    const lines: string[] = [];
    const g = githubGroup("unit", 2, 3, (l) => lines.push(l));
    g.open();
    g.output("stdout", "one\ntw");
    g.output("stderr", "::add-mask::x\n");
    g.output("stdout", "o\r\nthree");
    g.close();
    const token = lines[1]!.slice("::stop-commands::".length);
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect(lines).toEqual([
      "::group::dev_check: unit (2 of 3)",
      `::stop-commands::${token}`,
      "one",
      "::add-mask::x",
      "two",
      "three",
      `::${token}::`,
      "::endgroup::",
    ]);
    const again: string[] = [];
    githubGroup("unit", 1, 1, (l) => again.push(l)).open();
    expect(again[1]).not.toBe(lines[1]);
  });
});

describe("the step summary", () => {
  test("a table of the gates, then the end of each failed gate's output in a fence nothing in it can close", () => {
    const md = stepSummary([
      gate({ name: "types" }),
      gate({ name: "unit", passed: false, how: "exit code 1", durationMs: 1100, stderr: "a\n```\nsrc/a.ts:3 boom\n" }),
    ]);
    expect(md).toBe(
      [
        "### dev_check: 1 of 2 gates failed",
        "",
        "| gate | status | time |",
        "|---|---|---|",
        "| `types` | ✅ passed | 3.2 s |",
        "| `unit` | ❌ failed (exit code 1) | 1.1 s |",
        "",
        "<details><summary><code>unit</code>: the end of its output</summary>",
        "",
        "````text",
        "a\n```\nsrc/a.ts:3 boom",
        "````",
        "",
        "</details>",
        "",
      ].join("\n"),
    );
    expect(stepSummary([gate()])).toStartWith("### dev_check: 1 of 1 gates passed\n");
  });
});

describe("the first place a failed gate's output names", () => {
  test("mapped from the gate's copy to a file of the repository; a place outside it, missing, or reached through a link out is passed over", async () => {
    await using d = tempDir();
    const top = join(d.path, "repo");
    const copyRoot = join(d.path, "copy");
    mkdirSync(join(top, "src"), { recursive: true });
    mkdirSync(join(copyRoot, "src"), { recursive: true });
    writeFileSync(join(top, "src", "a.ts"), "x\n");
    writeFileSync(join(top, "b.py"), "x\n");
    symlinkSync("/etc", join(top, "out"));
    const where = { cwd: copyRoot, copyRoot, top };
    expect(firstPlace("error at src/a.ts:3:5: boom", where)).toEqual({ file: "src/a.ts", line: 3, col: 5 });
    expect(firstPlace(`${copyRoot}/src/a.ts:12 unused`, where)).toEqual({ file: "src/a.ts", line: 12 });
    expect(firstPlace(`(${top}/b.py:7)`, where)).toEqual({ file: "b.py", line: 7 });
    expect(firstPlace("./src/a.ts:1", { ...where, cwd: join(copyRoot, "src") })).toBeNull(); // src/src/a.ts is not there
    expect(firstPlace("/etc/passwd:1 then out/passwd:2 then src/a.ts:9", where)).toEqual({ file: "src/a.ts", line: 9 });
    expect(firstPlace("missing.ts:4 ../x/y.ts:2 at 10:30", where)).toBeNull();
  });
});
