// Names as servers write them (src/catalog/names.ts): what fits stays; anything else is mapped to
// a readable stem plus a digest, deterministically, within the budget and the characters every
// client takes, never two names to one (after normalization).
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { NAME_RULE } from "../../src/catalog/catalog.ts";
import { mapNames, mappedName, normalName, remoteToolName, serverPrefix } from "../../src/catalog/names.ts";

const hex = (s: string, n = 8) => createHash("sha256").update(s).digest("hex").slice(0, n);

describe("serverPrefix", () => {
  test.each([
    ["gh", "gh"],
    ["my-server_2", "my-server_2"],
    ["x".repeat(40), "x".repeat(40)],
    ["github.com/owner/repo", `github_com_owner_repo_${hex("github.com/owner/repo")}`],
    ["My Server", `My_Server_${hex("My Server")}`],
    ["x".repeat(41), `${"x".repeat(31)}_${hex("x".repeat(41))}`],
    ["sérvér", `s_rv_r_${hex("sérvér")}`],
    ["", `_${hex("")}`],
  ])("%p → %p", (server, prefix) => {
    expect(serverPrefix(server)).toBe(prefix);
    expect(prefix.length).toBeLessThanOrEqual(40);
  });
});

describe("remoteToolName", () => {
  test.each([
    ["gh", "issue", "gh__issue"],
    ["gh", "db.query", `gh__db_query_${hex("db.query")}`],
    ["gh", "a b/c", `gh__a_b_c_${hex("a b/c")}`],
    ["gh", ".", `gh___${hex(".")}`],
    ["gh", "x".repeat(124), `gh__${"x".repeat(124)}`],
    ["gh", "x".repeat(125), `gh__${"x".repeat(115)}_${hex("x".repeat(125))}`],
  ])("%p / %p → %p", (server, tool, name) => expect(remoteToolName(server, tool)).toBe(name));

  test("any server and tool name gives a catalog name that starts with the server's prefix", () => {
    const odd = ["", ".", "a.b", "é", "日本語", "a".repeat(300), "--", "__", "x y z", "\u0000", "a__b", "😀"];
    for (const server of odd) {
      for (const tool of odd) {
        const n = remoteToolName(server, tool);
        expect([server, tool, NAME_RULE.test(n), n.startsWith(`${serverPrefix(server)}__`)]).toEqual([
          server,
          tool,
          true,
          true,
        ]);
      }
    }
  });
});

describe("mapNames", () => {
  test("names that fit keep themselves; the rest map in sorted order, the same for any order given", () => {
    const names = ["a.b", "ok", "z z", `a_b_${hex("a.b")}`];
    const m = mapNames(names, 64);
    expect(m.get("ok")).toBe("ok");
    expect(m.get("a.b")).toBe(`a_b_${hex("a.b", 12)}`); // 8 hex was taken by a name that fits
    expect(mapNames([...names].reverse(), 64)).toEqual(m);
  });

  test("never two names to one, after normalization", () => {
    const names = Array.from({ length: 300 }, (_, i) => `tool.${i % 7}-${"x".repeat(i % 50)}`);
    const mapped = [...mapNames(names, 20).values()];
    expect(new Set(mapped.map(normalName)).size).toBe(new Set(names).size);
    expect(mapped.every((n) => n.length <= 20 && /^[A-Za-z0-9_-]+$/.test(n))).toBe(true);
  });

  test("mappedName falls back past a taken digest", () => {
    const first = mappedName("a.b", 32);
    expect(mappedName("a.b", 32, new Set([normalName(first)]))).toBe(`a_b_${hex("a.b", 12)}`);
  });
});
