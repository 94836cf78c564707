import { describe, expect, test } from "bun:test";
import { formatOrigin, isOrigin, mcpServerOf, parseOrigin, serverOf } from "../../src/catalog/origin.ts";

describe("origins", () => {
  test("each stored text parses to its kind and formats back to the same text", () => {
    for (const text of ["builtin", "authored", "las", "mcp:eslint", "mcp:a:b"])
      expect(formatOrigin(parseOrigin(text))).toBe(text);
    expect(parseOrigin("mcp:a:b")).toEqual({ kind: "mcp", server: "a:b" });
  });

  test("serverOf names Las and MCP servers, mcpServerOf only the config's MCP servers", () => {
    expect(["builtin", "authored", "las", "mcp:git"].map((o) => serverOf(o))).toEqual([
      undefined,
      undefined,
      "las",
      "git",
    ]);
    expect(["builtin", "authored", "las", "mcp:git"].map((o) => mcpServerOf(o))).toEqual([
      undefined,
      undefined,
      undefined,
      "git",
    ]);
    expect([serverOf(null), serverOf(undefined), serverOf({ kind: "mcp", server: "x" })]).toEqual([
      undefined,
      undefined,
      "x",
    ]);
    expect([isOrigin("authored", "authored"), isOrigin("mcp:x", "las")]).toEqual([true, false]);
  });
});
