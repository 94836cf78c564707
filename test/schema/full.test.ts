// The complete validator for tools from other sources (src/schema/full.ts): the drafts and
// keywords real servers write (pydantic/FastMCP's $defs and anyOf-with-null, draft-07's
// definitions and tuple items, formats), defaults only when asked and never into the caller's
// object, and schemas it cannot check refused with ajv's reason.
import { describe, expect, test } from "bun:test";
import { compileExternal, compileFull, issuesOf, whereInSchema } from "../../src/schema/full.ts";

/** What FastMCP writes for `def search(q: Query, limit: int | None = None)` with a nested pydantic model. */
const PYDANTIC = {
  $defs: {
    Query: {
      properties: {
        text: { title: "Text", type: "string" },
        tags: { anyOf: [{ items: { type: "string" }, type: "array" }, { type: "null" }], default: null, title: "Tags" },
      },
      required: ["text"],
      title: "Query",
      type: "object",
    },
  },
  properties: {
    q: { $ref: "#/$defs/Query" },
    limit: { anyOf: [{ type: "integer" }, { type: "null" }], default: null, title: "Limit" },
  },
  required: ["q"],
  title: "searchArguments",
  type: "object",
};

describe("compileFull", () => {
  test.each([
    [
      "pydantic $defs and anyOf-with-null",
      PYDANTIC,
      { q: { text: "x", tags: null }, limit: 3 },
      { q: { tags: ["a"] }, limit: "3" },
      [
        "q.text: must be present",
        "limit: must be an integer (was string)",
        "limit: must be null (was string)",
        "limit: must match a schema in anyOf",
      ],
    ],
    [
      "draft-07 definitions, named by $schema",
      {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { p: { $ref: "#/definitions/P" } },
        definitions: { P: { type: "string", minLength: 2 } },
      },
      { p: "ab" },
      { p: "a" },
      ["p: must be at least length 2 (was 1)"],
    ],
    [
      "draft-07 tuple items without $schema (2020-12 refuses them: draft-07 is tried)",
      {
        type: "object",
        properties: {
          pair: { type: "array", items: [{ type: "string" }, { type: "number" }], additionalItems: false },
        },
      },
      { pair: ["a", 1] },
      { pair: ["a", "b", 3] },
      ["pair: must NOT have more than 2 items", "pair.1: must be a number (was string)"],
    ],
    [
      "2020-12 prefixItems and $schema",
      {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { pair: { prefixItems: [{ type: "string" }], items: false } },
      },
      { pair: ["a"] },
      { pair: ["a", 1] },
      ["pair: must NOT have more than 1 items"],
    ],
    [
      "2019-09 by $schema",
      {
        $schema: "https://json-schema.org/draft/2019-09/schema",
        type: "object",
        properties: { n: { type: "integer", exclusiveMaximum: 3 } },
        unevaluatedProperties: false,
      },
      { n: 2 },
      { n: 3, x: 1 },
      ["n: must be less than 3 (was 3)", "must NOT have unevaluated properties"],
    ],
    [
      "formats from ajv-formats",
      {
        type: "object",
        properties: {
          at: { type: "string", format: "date-time" },
          mail: { type: "string", format: "email" },
          site: { type: "string", format: "uri" },
        },
      },
      { at: "2026-01-02T03:04:05Z", mail: "a@b.example", site: "https://h/x" },
      { at: "soon", mail: "nobody", site: "::" },
      ['at: must match format "date-time"', 'mail: must match format "email"', 'site: must match format "uri"'],
    ],
    [
      "an unknown format is an annotation",
      { type: "object", properties: { p: { type: "string", format: "path" } } },
      { p: "x" },
      { p: 1 },
      ["p: must be a string (was number)"],
    ],
    [
      "recursion through $ref",
      {
        type: "object",
        properties: { tree: { $ref: "#/$defs/Node" } },
        $defs: {
          Node: {
            type: "object",
            properties: { kids: { type: "array", items: { $ref: "#/$defs/Node" } } },
            additionalProperties: false,
          },
        },
      },
      { tree: { kids: [{ kids: [] }] } },
      { tree: { kids: [{ x: 1 }] } },
      ["tree.kids.0.x: must be removed"],
    ],
    [
      "enum, const and pattern",
      {
        type: "object",
        properties: { a: { enum: ["x", 1] }, b: { const: true }, c: { type: "string", pattern: "^v\\d+$" } },
      },
      { a: 1, b: true, c: "v2" },
      { a: "y", b: false, c: "2" },
      ['a: must be "x" or 1', "b: must be true", "c: must match /^v\\d+$/"],
    ],
  ] as const)("%s", (_what, schema, good, bad, issues) => {
    const validate = compileFull(schema);
    expect(validate(good)).toEqual({ ok: true, value: good });
    const r = validate(bad);
    expect(
      r.ok
        ? []
        : r.issues.map((i) =>
            `${i.path.length ? i.path.join(".") : "(arguments)"}: ${i.message}`.replace(/^\(arguments\): /, ""),
          ),
    ).toEqual([...issues]);
  });

  test("no defaults by default: a server gets exactly the arguments given", () => {
    const args = { q: { text: "x" } };
    const r = compileFull(PYDANTIC)(args);
    expect(r).toEqual({ ok: true, value: { q: { text: "x" } } });
  });

  test("fillDefaults fills a copy, never the caller's object", () => {
    const schema = {
      type: "object",
      properties: {
        n: { type: "integer", default: 5 },
        o: { type: "object", properties: { f: { type: "boolean", default: false } }, default: {} },
      },
    };
    const args = {};
    expect(compileFull(schema, { fillDefaults: true })(args)).toEqual({ ok: true, value: { n: 5, o: { f: false } } });
    expect(args).toEqual({});
  });

  test.each([
    [
      "a $ref that points nowhere",
      { type: "object", properties: { a: { $ref: "#/$defs/none" } } },
      /can't resolve reference #\/\$defs\/none/,
      ["properties", "a"],
    ],
    [
      "a remote $ref (nothing is fetched)",
      { type: "object", properties: { a: { $ref: "https://example.invalid/s.json" } } },
      /can't resolve reference https:\/\/example\.invalid\/s\.json/,
      ["properties", "a"],
    ],
    [
      "a pattern that is not a regular expression",
      { type: "object", properties: { q: { type: "string", pattern: "(" } } },
      /Invalid regular expression/,
      ["properties", "q"],
    ],
    [
      "a malformed keyword",
      { type: "object", properties: { a: { type: "strin" } } },
      /^type must be JSONType or JSONType\[\]: strin/,
      [],
    ],
  ])("refuses %s, and says where when ajv does not", (_what, schema, message, where) => {
    let thrown: unknown;
    try {
      compileFull(schema);
    } catch (e) {
      thrown = e;
    }
    expect((thrown as Error).message).toMatch(message);
    expect(whereInSchema(schema, thrown)).toEqual(where);
  });

  test("issuesOf decodes JSON pointers", () => {
    expect(issuesOf([{ instancePath: "/a~1b/0/c~0d", keyword: "x", message: "m", params: {} }])).toEqual([
      { path: ["a/b", 0, "c~d"], message: "m" },
    ]);
  });
});

describe("compileExternal", () => {
  const PLAIN = {
    type: "object",
    properties: { name: { type: "string", maxLength: 2 }, n: { type: "integer", default: 1 } },
    required: ["name"],
  };

  test("a plain schema is checked without ajv, and the arguments go on as given (no defaults)", () => {
    const validate = compileExternal(PLAIN);
    const args = { name: "ab" };
    const r = validate(args);
    expect(r).toEqual({ ok: true, value: { name: "ab" } });
    expect(r.ok && r.value).toBe(args);
  });

  test("string lengths count code points, as JSON Schema says (two emoji are two characters)", () => {
    expect(compileExternal(PLAIN)({ name: "😀😀" }).ok).toBe(true);
    expect(compileExternal(PLAIN)({ name: "😀😀😀" })).toEqual({
      ok: false,
      issues: [{ path: ["name"], message: "must be at most length 2 (was 3)" }],
    });
    expect(compileFull(PLAIN)({ name: "😀😀" }).ok).toBe(true);
  });

  test("authored tools get their defaults filled", () => {
    expect(compileExternal(PLAIN, { fillDefaults: true })({ name: "a" })).toEqual({
      ok: true,
      value: { name: "a", n: 1 },
    });
    expect(compileExternal(PYDANTIC, { fillDefaults: true })({ q: { text: "x" } })).toEqual({
      ok: true,
      value: { q: { text: "x", tags: null }, limit: null },
    });
  });

  test("a schema past the subset goes to the complete validator; the verdicts agree on both sides of it", () => {
    expect(compileExternal(PYDANTIC)({ q: {} })).toEqual({
      ok: false,
      issues: [{ path: ["q", "text"], message: "must be present" }],
    });
    for (const data of [{ name: "a" }, { name: 1 }, {}, { name: "abc", n: 1.5 }]) {
      expect([data, compileExternal(PLAIN)(data).ok]).toEqual([data, compileFull(PLAIN)(data).ok]);
    }
  });
});
