import { describe, expect, test } from "bun:test";
import { withheldToolNotes, type ServerStatus } from "../../src/servers/list.ts";

const status = (over: Partial<ServerStatus>): ServerStatus => ({
  name: "desc",
  origin: "mcp:desc",
  ok: true,
  tools: 1,
  cached: false,
  ...over,
});

describe("withheldToolNotes", () => {
  test("one line per withheld tool: the rule and the place; the flag for a path; a name that broke a rule by its place", () => {
    const notes = withheldToolNotes([
      status({}),
      status({
        withheldTools: [
          { tool: "meta_key", position: 2, name: "desc__meta_key", rule: "secret_key", where: "$._meta.api_key" },
          {
            tool: "shadow_title",
            position: 3,
            name: "desc__shadow_title",
            rule: "local_path",
            where: "$.annotations.title",
          },
          { position: 4, name: "desc__etc_shadow_0000", rule: "local_path", where: "$.name" },
        ],
      }),
      status({
        name: "las",
        origin: "las",
        withheldTools: [{ tool: "a__b", position: 1, name: "a__b", rule: "local_path", where: "$.description" }],
      }),
    ]);
    expect(notes).toEqual([
      'mcp:desc: tool "meta_key" withheld: what it declares breaks the output boundary (rule secret_key at $._meta.api_key, the value is not shown)',
      'mcp:desc: tool "shadow_title" withheld: what it declares breaks the output boundary (rule local_path at $.annotations.title, the value is not shown); if its descriptors rightly hold absolute paths, --allow-local-paths=desc lets them through',
      "mcp:desc: tool #4 (its name is not shown) withheld: what it declares breaks the output boundary (rule local_path at $.name, the value is not shown); if its descriptors rightly hold absolute paths, --allow-local-paths=desc lets them through",
      'las: tool "a__b" withheld: what it declares breaks the output boundary (rule local_path at $.description, the value is not shown)',
    ]);
  });
});
