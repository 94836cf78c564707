// Help rendering in process: wrapping to a width, examples continued between shell words.
import { describe, expect, test } from "bun:test";
import { defineCommand } from "citty";
import { renderHelp, shellLines, wrap } from "../../src/cli/render-help.ts";

const top = defineCommand({
  meta: { name: "toolgate", version: "9.9.9", description: "The top command." },
  args: { quiet: { type: "boolean", alias: "q", description: "No human messages on stderr" } },
  subCommands: { call: () => Promise.resolve(call) },
});
const call = defineCommand({
  meta: {
    name: "call",
    description: "Run one tool call and print its result JSON (stdout) with the outcome's exit code",
  },
  args: {
    tool: { type: "positional", description: "Tool name", required: false },
    "write-scope": {
      type: "string",
      description: "With --background: a name only one active task may hold at a time (a second is refused)",
      valueHint: "S",
    },
    background: { type: "boolean", description: "Run the call as a background task" },
  },
});

describe("wrap", () => {
  test.each([
    ["one two three four", 9, ["one two", "three", "four"]],
    ["a  b\n c", 80, ["a b c"]],
    ["", 10, [""]],
    ["https://a.example/very/long/path", 10, ["https://a", ".example/", "very/long", "/path"]],
  ] as const)("%p at %p", (text, width, lines) => {
    expect(wrap(text, width)).toEqual([...lines]);
  });

  test("hanging indents", () => {
    expect(wrap("alpha beta gamma delta", 12, 4, 2)).toEqual(["  alpha beta", "    gamma", "    delta"]);
  });
});

describe("shellLines", () => {
  test("a line that fits stays one line", () => {
    expect(shellLines("toolgate tools --json", 80, 2)).toEqual(["  toolgate tools --json"]);
  });

  test("continued with ` \\` between words, quoted words kept whole", () => {
    const lines = shellLines(
      `toolgate call file_read '{"path": "README.md", "limit": 5}' --allow-read --approve file_read`,
      40,
      2,
    );
    expect(lines).toEqual([
      "  toolgate call file_read \\",
      `      '{"path": "README.md", "limit": 5}' \\`,
      "      --allow-read --approve file_read",
    ]);
    // What bash would read: the same words.
    expect(lines.join("\n").replaceAll(" \\\n", " ").replace(/\s+/g, " ").trim()).toBe(
      `toolgate call file_read '{"path": "README.md", "limit": 5}' --allow-read --approve file_read`,
    );
  });
});

describe("renderHelp", () => {
  test.each([40, 60, 100])("at %p columns no line is wider, and every part is there", async (width) => {
    const text = await renderHelp(top, call, width);
    for (const line of text.split("\n")) expect(line.length).toBeLessThanOrEqual(width);
    for (const part of [
      "USAGE toolgate call [OPTIONS] [TOOL]",
      "ARGUMENTS",
      "OPTIONS",
      "--write-scope=<S>",
      "EXAMPLES",
      "GLOBAL FLAGS",
    ])
      expect(text).toContain(part);
  });

  test("the top command lists its commands and ends with where to look next", async () => {
    const text = await renderHelp(top, top, 80);
    expect(text).toContain("USAGE toolgate [OPTIONS] <COMMAND>");
    expect(text).toContain("-q, --quiet");
    expect(text).toContain("\nCOMMANDS\n\n  call  Run one tool call");
    expect(text).toEndWith("examples.");
  });

  test("styled (a terminal): headings in bold, nothing else", async () => {
    const text = await renderHelp(top, call, 80, true);
    expect(text).toContain("\u001b[1mUSAGE\u001b[22m");
    expect(text.replace(/\u001b\[(1|22)m/g, "")).toBe(await renderHelp(top, call, 80));
  });
});
