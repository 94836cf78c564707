// Tables fit the width they are given: the widest columns give way first, long cells cut with ….
import { describe, expect, test } from "bun:test";
import { cut, displayWidth, outputWidth, table } from "../../src/cli/ui.ts";

const rows = [
  ["NAME", "EFFECT", "DESCRIPTION"],
  ["file_read", "read", "Read a text file of the workspace, a window of lines at a time, with its digest."],
  ["bash", "irreversible", "Run one command line."],
];

describe("table", () => {
  test("a table that fits is padded and left whole", () => {
    expect(
      table(
        [
          ["A", "BB"],
          ["ccc", "d"],
        ],
        80,
      ),
    ).toBe("A    BB\nccc  d");
  });

  test.each([40, 50, 60, 72])("no line is wider than %p columns; cut cells end in …", (width) => {
    const out = table(rows, width).split("\n");
    for (const line of out) expect(displayWidth(line)).toBeLessThanOrEqual(width);
    expect(out[1]).toEndWith("…");
    expect(out[1]!.startsWith("file_read")).toBe(true);
  });

  test("the description gives way; the other columns keep their width", () => {
    const out = table(rows, 50).split("\n");
    expect(out[0]).toBe("NAME       EFFECT        DESCRIPTION");
    expect(out[1]).toBe("file_read  read          Read a text file of the…");
    expect(out[2]).toBe("bash       irreversible  Run one command line.");
  });

  test("columns never go below their floor: too narrow a width leaves the lines longer", () => {
    const out = table([["abcdefghij", "klmnopqrst"]], 5);
    expect(out).toBe("abcde…  klmno…");
  });

  test("wide characters count two columns", () => {
    expect(displayWidth("日本")).toBe(4);
    expect(cut("日本語のテキスト", 7)).toBe("日本語…");
    const out = table(
      [
        ["名前", "x"],
        ["a", "y"],
      ],
      80,
    ).split("\n");
    expect(out).toEqual(["名前  x", "a     y"]);
  });

  test("control characters are escaped before they are measured", () => {
    const out = table([["a\u001b[31mred", "b"]], 80);
    expect(out).not.toContain("\u001b");
  });
});

describe("outputWidth", () => {
  test.each([
    [false, {}, 100],
    [false, { COLUMNS: "60" }, 100],
    [true, { COLUMNS: "60" }, 60],
    [true, { COLUMNS: "junk" }, 100],
    [true, { COLUMNS: "5" }, 100],
    [true, {}, 100],
  ] as const)("stdout a terminal %p, env %p: %p", (stdoutIsTTY, env, width) => {
    expect(outputWidth({ stdoutIsTTY, env })).toBe(width);
  });
});

describe("table: which column gives way", () => {
  const wide = [
    ["KEY", "VALUE", "ORIGIN"],
    [
      "mcpServers.docs.args",
      JSON.stringify(["-y", "some-package@1.2.3", "--root", "/a/very/long/path/to/somewhere"]),
      "file:toolgate.json:4",
    ],
  ];
  test("the last column first, down to its floor, then the widest of the others", () => {
    const out = table(rows, 62).split("\n");
    expect(out[1]).toBe("file_read  read          Read a text file of the workspace, a…");
    const narrow = table(rows, 30).split("\n");
    expect(narrow).toEqual([
      "NAME       EFFECT       DESCR…",
      "file_read  read         Read…",
      "bash       irreversib…  Run o…",
    ]);
  });

  test("flex names the column that gives way first", () => {
    const out = table(wide, 70, 1).split("\n");
    for (const line of out) expect(displayWidth(line)).toBeLessThanOrEqual(70);
    expect(out[1]).toStartWith("mcpServers.docs.args  [");
    expect(out[1]).toEndWith("…  file:toolgate.json:4");
  });
});
