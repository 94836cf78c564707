// How the documentation's examples are read from Markdown (docs/development.md, "Examples in the
// documentation"): which blocks run, what a directive gives the next one, and how output compares.
import { describe, expect, test } from "bun:test";
import { consoleCommands, matches, normalise, parseExamples } from "./markdown.ts";

const page = [
  "# Page",
  "```sh",
  "toolgate tools",
  "```",
  "<!-- setup: printf 'x\\n' > a.txt -->",
  "<!-- file: tools/t/tool.json -->",
  "```json",
  '{"name":"t"}',
  "```",
  "",
  "  ```console",
  "  $ toolgate call t \\",
  "    --approve t",
  '  {"status":"success"}',
  "  ```",
  "```sh no-run: needs a remote server",
  "toolgate auth docs",
  "```",
  "```json",
  "{}",
  "```",
].join("\n");

describe("parseExamples", () => {
  test("takes sh, bash and console blocks, with the setup and files written before each", () => {
    const ex = parseExamples("p.md", page);
    expect(ex.map((e) => [e.line, e.lang, e.noRun, e.setup, e.files])).toEqual([
      [2, "sh", null, [], []],
      [11, "console", null, ["printf 'x\\n' > a.txt"], [{ path: "tools/t/tool.json", text: '{"name":"t"}\n' }]],
      [16, "sh", "needs a remote server", [], []],
    ]);
    expect(consoleCommands(ex[1]!)).toEqual([
      { at: 12, command: "toolgate call t \\\n  --approve t", expected: ['{"status":"success"}'] },
    ]);
  });

  test("a no-run comment before a plain fence marks that block alone", () => {
    const ex = parseExamples(
      "r.md",
      "<!-- no-run: runs the whole suite -->\n```sh\nnpm test\n```\n```sh\necho hi\n```\n",
    );
    expect(ex.map((e) => [e.line, e.noRun])).toEqual([
      [2, "runs the whole suite"],
      [5, null],
    ]);
  });

  test.each([
    ["a no-run without a reason", "```sh no-run\nx\n```\n", "p.md:1: no-run needs a reason"],
    ["anything else after the language", "```sh skip\nx\n```\n", 'p.md:1: "skip" after the language'],
    ["a fence never closed", "```sh\nx\n", "p.md:1: a fence that is never closed"],
    [
      "a directive with nothing after it",
      "<!-- setup: true -->\n",
      "a file: or setup: directive with no runnable block after it",
    ],
    [
      "a console block that starts with output",
      "```console\nout\n```\n",
      'p.md:2: a console block starts with a command ("$ ...")',
    ],
  ])("refuses %s", (_, md, message) => {
    expect(() => parseExamples("p.md", md).forEach(consoleCommands)).toThrow(message);
  });
});

describe("matches", () => {
  test.each([
    [["a…c"], ["abbbc"], true],
    [["a…c"], ["abd"], false],
    [["x", "…"], ["x", "y", "z"], true],
    [["…", "z"], ["z"], true],
    [["x"], ["x", "y"], false],
    [["NAME  DIGEST"], ["NAME          DIGEST"], true],
    [["a.b"], ["axb"], false],
  ])("%j against %j: %p", (expected, actual, result) => {
    expect(matches(expected, actual)).toBe(result);
  });
});

test("normalise writes the workspace as /w and the home as ~", () => {
  const places = { workspace: "/tmp/r/w", home: "/tmp/r/home", root: "/tmp/r" };
  expect(normalise("/tmp/r/w/a.txt\n/tmp/r/home/.local\n/tmp/r/x\n\n", places)).toEqual([
    "/w/a.txt",
    "~/.local",
    "/tmp/…/x",
  ]);
});
