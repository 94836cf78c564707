// offsetAt (src/config/locate.ts) finds in plain JSON the offset jsonc-parser's tree gives for a
// key path (first property of a name, escaped names decoded, array indexes), on generated files of
// every shape a config may take: whitespace, escapes, brackets inside strings, duplicate keys.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { findNodeAtLocation, parseTree } from "jsonc-parser";
import { offsetAt } from "../../src/config/locate.ts";
import { readConfig } from "../../src/config/file.ts";
import { tempDir } from "../helpers.ts";

/** A small deterministic generator (mulberry32): the same files on every run. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NAMES = ["mcpServers", "everything", "a", "b", "default", "x]y", 'q"uote', "sl\\ash", "{", "é", "😀", "args"];
const SPACES = ["", " ", "  ", "\n", "\r\n", "\t", "\n    "];

function generate(r: () => number, depth: number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const sp = () => pick(SPACES);
  const key = () => (r() < 0.2 ? JSON.stringify(pick(NAMES)).replace("a", "\\u0061") : JSON.stringify(pick(NAMES)));
  const roll = r();
  if (depth > 3 || roll < 0.3)
    return pick(['"s"', '"a ] } { [ , : \\" \\\\"', "12", "-1.5e3", "true", "false", "null", '"\\u00e9\\n"', '""']);
  if (roll < 0.65) {
    const n = Math.floor(r() * 5);
    const props = Array.from({ length: n }, () => `${sp()}${key()}${sp()}:${sp()}${generate(r, depth + 1)}${sp()}`);
    return `{${props.join(",") || sp()}}`;
  }
  const n = Math.floor(r() * 4);
  return `[${Array.from({ length: n }, () => `${sp()}${generate(r, depth + 1)}${sp()}`).join(",") || sp()}]`;
}

describe("offsetAt", () => {
  test("the offset jsonc-parser's tree gives, for 2,000 generated files and paths into each", () => {
    const r = rng(22);
    let compared = 0;
    for (let i = 0; i < 2000; i++) {
      const text = `${SPACES[i % SPACES.length]}${generate(r, 0)}${SPACES[(i + 3) % SPACES.length]}`;
      JSON.parse(text); // the caller's precondition: plain JSON
      const tree = parseTree(text)!;
      for (let j = 0; j < 6; j++) {
        const path: (string | number)[] = Array.from({ length: 1 + Math.floor(r() * 3) }, () =>
          r() < 0.3 ? Math.floor(r() * 3) : NAMES[Math.floor(r() * NAMES.length)]!,
        );
        expect({ text, path, at: offsetAt(text, path) }).toEqual({
          text,
          path,
          at: findNodeAtLocation(tree, path)?.offset,
        });
        compared++;
      }
      // And a path that exists: the first key of each object on the way down.
      const down: (string | number)[] = [];
      for (let n = tree; n && (n.type === "object" || n.type === "array") && n.children?.length; ) {
        const first = n.children[0]!;
        if (n.type === "object") {
          down.push(first.children![0]!.value as string);
          n = first.children![1]!;
        } else {
          down.push(0);
          n = first;
        }
      }
      expect(offsetAt(text, down)).toBe(findNodeAtLocation(tree, down)!.offset);
    }
    expect(compared).toBe(12_000);
  });

  test("a duplicate key: the first one's value, as jsonc-parser finds it", () => {
    const text = '{"mcpServers": {"a": 1}, "mcpServers": {"a": 2}}';
    expect(offsetAt(text, ["mcpServers", "a"])).toBe(text.indexOf("1"));
  });

  test("a config's line numbers (a server's journal row, the prompt): the same for plain JSON and JSONC", async () => {
    await using dir = tempDir();
    const plain = join(dir.path, "plain.json");
    const withComments = join(dir.path, "comments.json");
    const body =
      '{\n  "las": { "enabled": false },\n\n  "mcpServers": {\n    "one": { "command": "a" },\n    "two": {\n      "command": "b"\n    }\n  }\n}\n';
    writeFileSync(plain, body);
    writeFileSync(withComments, body.replace('"las"', '// a comment\n  "las"').replace("\n}\n", ",\n}\n"));
    const [p, c] = [await readConfig(plain, "flag"), await readConfig(withComments, "flag")];
    expect([
      p.lineOf(["mcpServers", "one"]),
      p.lineOf(["mcpServers", "two"]),
      p.lineOf(["mcpServers", "three"]),
      p.lineOf(["las", "enabled"]),
    ]).toEqual([5, 6, undefined, 2]);
    expect([
      c.lineOf(["mcpServers", "one"]),
      c.lineOf(["mcpServers", "two"]),
      c.lineOf(["mcpServers", "three"]),
      c.lineOf(["las", "enabled"]),
    ]).toEqual([6, 7, undefined, 3]);
  });
});
