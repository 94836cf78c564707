import { describe, expect, test } from "bun:test";
import { buildCatalog, normalizeName, toolDigest, type Adapter, type ToolSource } from "../../src/catalog/catalog.ts";
import { builtinSources } from "../../src/catalog/builtin.ts";
import { canonicalJson } from "../../src/catalog/canonical.ts";
import { builtinTools } from "../../src/tools/index.ts";
import { remoteTerms } from "../helpers.ts";

const adapter: Adapter = { needs: () => ({ ok: true, value: [] }), run: async () => ({ ok: true, value: null }) };
const src = (over: Partial<ToolSource>): ToolSource => ({
  origin: "mcp:alpha",
  rawName: "search",
  name: "alpha__search",
  description: "d",
  inputSchema: { type: "object", properties: {} },
  effect: "read",
  approval: "required",
  terms: remoteTerms(),
  adapter,
  ...over,
});

describe("catalog", () => {
  test("two builds from the same declarations are byte-identical", () => {
    const a = buildCatalog(builtinSources(builtinTools));
    const b = buildCatalog(builtinSources(builtinTools));
    expect(a.ok && b.ok).toBe(true);
    if (!a.ok || !b.ok) return;
    expect(JSON.stringify(a.value.descriptors)).toBe(JSON.stringify(b.value.descriptors));
    expect(a.value.descriptors.map((d) => d.name)).toEqual(builtinTools.map((t) => t.name).sort());
  });

  test("a collision after normalization fails and names both origins", () => {
    const r = buildCatalog([
      src({ name: "search-a", origin: "mcp:alpha" }),
      src({ name: "Search_A", origin: "mcp:beta" }),
    ]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.refusal.code).toBe("catalog.collision");
    expect(r.refusal.message).toContain('"search-a" from mcp:alpha');
    expect(r.refusal.message).toContain('"Search_A" from mcp:beta');
  });

  test("a tool colliding with a built-in fails the boot: no source has priority", () => {
    const r = buildCatalog([...builtinSources(builtinTools), src({ name: "FILE-READ", origin: "las" })]);
    expect(r.ok ? "" : r.refusal.message).toContain("builtin");
  });

  test.each([
    ["", false],
    ["a", true],
    ["x".repeat(64), true],
    // MCP's own limit: <server>__<tool> past 64 is a catalog name; serve maps it to a client's budget.
    ["x".repeat(128), true],
    ["x".repeat(129), false],
    ["has space", false],
    ["dot.name", false],
    ["ünïcode", false],
    ["a-b_C9", true],
  ])("name rule: %p → %p", (name, good) => {
    const r = buildCatalog([src({ name })]);
    expect(r.ok).toBe(good);
    if (!r.ok) expect(r.refusal.code).toBe("catalog.bad_name");
  });

  test.each([[[]], [null], ["object"], [{ type: "array" }], [{ properties: {} }]])(
    "schema %p must be an object schema",
    (schema) => {
      const r = buildCatalog([src({ inputSchema: schema })]);
      expect(r.ok ? "" : r.refusal.code).toBe("catalog.bad_schema");
    },
  );

  test("an undeclared or unknown effect class fails closed to irreversible", () => {
    const r = buildCatalog([src({ effect: undefined, name: "a" }), src({ effect: "harmless", name: "b" })]);
    expect(r.ok && r.value.descriptors.map((d) => d.effect)).toEqual(["irreversible", "irreversible"]);
  });

  test("digest is sha256 of canonical JSON of origin, raw name, schema, effect, description and what runs", async () => {
    const schema = { type: "object", properties: { b: { type: "string" }, a: { type: "number" } } };
    const id = {
      origin: "mcp:alpha",
      name: "search",
      schema,
      effect: "read" as const,
      description: "d",
      executable: { argv: ["node", "s.js"] },
    };
    const expected = new Bun.CryptoHasher("sha256")
      .update(
        canonicalJson({
          description: "d",
          effect: "read",
          executable: { argv: ["node", "s.js"] },
          name: "search",
          origin: "mcp:alpha",
          schema,
        }),
      )
      .digest("hex");
    expect(toolDigest(id)).toBe(expected);
    // key order inside the schema does not matter; any material change does
    const reordered = { properties: { a: { type: "number" }, b: { type: "string" } }, type: "object" };
    expect(toolDigest({ ...id, schema: reordered })).toBe(expected);
    for (const changed of [
      { origin: "mcp:beta" },
      { effect: "irreversible" as const },
      { schema: { ...schema, required: ["a"] } },
      { description: "d2" },
      { executable: { argv: ["node", "evil.js"] } },
      { executable: undefined },
    ])
      expect(toolDigest({ ...id, ...changed })).not.toBe(expected);
  });

  test("a digest is hashed when first read, once, and the descriptor shows the same string", () => {
    const reads: string[] = [];
    const running = (tool: string) => ({
      get argv() {
        reads.push(tool);
        return ["node", `${tool}.js`];
      },
    });
    const r = buildCatalog([
      src({ name: "alpha__search", executable: running("search") }),
      src({ name: "alpha__fetch", rawName: "fetch", executable: running("fetch") }),
    ]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(reads).toEqual([]);
    const entry = r.value.entries.get("alpha__search")!;
    const want = toolDigest({
      origin: "mcp:alpha",
      name: "search",
      schema: entry.inputSchema,
      effect: "read",
      description: "d",
      executable: { argv: ["node", "search.js"] },
    });
    reads.length = 0;
    expect([entry.digest, entry.digest]).toEqual([want, want]);
    expect(reads).toEqual(["search"]);
    const shown = r.value.descriptors.find((d) => d.name === "alpha__search")!;
    expect(JSON.parse(JSON.stringify(shown))).toEqual({
      name: "alpha__search",
      origin: "mcp:alpha",
      description: "d",
      effect: "read",
      approval: "required",
      digest: want,
      inputSchema: { type: "object", properties: {} },
    });
    expect(Object.keys(shown)).toEqual([
      "name",
      "origin",
      "description",
      "effect",
      "approval",
      "digest",
      "inputSchema",
    ]);
    expect(reads).toEqual(["search"]);
  });

  test("a built-in's terms: its generated check on the grants, its own words past the boundary unless its output comes from outside, its own timer when it times its runs", () => {
    const terms = (name: string) => builtinSources(builtinTools).find((s) => s.name === name)!.terms;
    expect(terms("file_read")).toMatchObject({
      validation: { kind: "generated" },
      settle: { by: "grants" },
      boundary: { localPaths: { rule: "own-words" }, apps: false },
      secrets: [],
      audit: null,
      time: { kind: "default" },
      acts: "here",
    });
    expect(terms("web_extract").boundary.localPaths).toEqual({ rule: "on" });
    expect(typeof terms("web_extract").audit).toBe("function");
    expect(terms("dev_check").time).toEqual({ kind: "own", deadlineMs: 2 ** 31 - 1, limit: null });
    const bash = terms("bash").time;
    expect(bash.kind === "own" && bash.limit?.({ bash: { max_timeout_secs: 45 } })).toEqual({
      secs: 45,
      setBy: "bash.max_timeout_secs",
    });
  });

  test("normalization lowercases and maps - to _", () => {
    expect(normalizeName("Search-A")).toBe("search_a");
  });
});
