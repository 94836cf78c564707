import { describe, expect, test } from "bun:test";
import { configSchema } from "../../src/generated/schemas.ts";
import { keysAt, withKeySuggestions } from "../../src/schema/keys.ts";

const NODE = {
  type: "object",
  properties: { title: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
  additionalProperties: false,
};
const TREE = { type: "object", properties: { root: { $ref: "#/$defs/Node" } }, $defs: { Node: NODE } };
const UNION = {
  anyOf: [
    { type: "object", properties: { path: {}, limit: {} } },
    { type: "object", properties: { url: {} } },
  ],
};
const TUPLE = {
  type: "object",
  properties: {
    pair: {
      type: "array",
      prefixItems: [{ type: "object", properties: { a: {} } }],
      items: { type: "object", properties: { b: {} } },
    },
  },
};
const PATTERNS = {
  type: "object",
  patternProperties: { "^x-": { type: "object", properties: { note: {} } } },
  additionalProperties: { type: "object", properties: { other: {} } },
};

describe("keysAt", () => {
  test.each([
    [
      "the top level",
      { type: "object", properties: { path: {}, offset: {}, limit: {} } },
      [],
      ["path", "offset", "limit"],
    ],
    ["through a local $ref, recursively, and array items", TREE, ["root", "children", 3], ["title", "children"]],
    ["every branch of a union", UNION, [], ["path", "limit", "url"]],
    ["a tuple's element, then the rest", TUPLE, ["pair", 0], ["a"]],
    ["past a tuple's prefix", TUPLE, ["pair", 1], ["b"]],
    ["a key matching a pattern", PATTERNS, ["x-a"], ["note"]],
    ["any other key of a map", PATTERNS, ["y"], ["other"]],
    [
      "the config: a top-level key",
      configSchema,
      [],
      expect.arrayContaining(["sandbox", "permissions", "mcpServers", "gates"]),
    ],
    [
      "the config: a server of mcpServers",
      configSchema,
      ["mcpServers", "any"],
      expect.arrayContaining(["command", "args", "env", "url"]),
    ],
    ["the config: a grant", configSchema, ["permissions", "allow"], ["env", "net", "read", "run", "write"]],
    ["a path the schema does not describe", TREE, ["nope", "deeper"], []],
    ["a $ref that leads nowhere", { $ref: "#/$defs/Missing" }, [], []],
    ["a $ref that points at itself", { $defs: { A: { $ref: "#/$defs/A" } }, $ref: "#/$defs/A" }, [], []],
    ["not a schema", true, ["a"], []],
  ])("%s", (_what, schema, path, want) => {
    expect(keysAt(schema, path as (string | number)[])).toEqual(want as string[]);
  });
});

describe("withKeySuggestions", () => {
  const schema = {
    type: "object",
    properties: {
      path: {},
      offset: {},
      limit: {},
      inner: { type: "object", properties: { colour: {} }, additionalProperties: false },
    },
    additionalProperties: false,
  };

  test.each([
    [
      "an unknown key near a declared one",
      { path: "a", limt: 5 },
      [{ path: ["limt"], message: "must be removed" }],
      [{ path: ["limt"], message: "must be removed", did_you_mean: "limit" }],
    ],
    [
      "a nested one",
      { path: "a", inner: { color: 1 } },
      [{ path: ["inner", "color"], message: "must be removed" }],
      [{ path: ["inner", "color"], message: "must be removed", did_you_mean: "colour" }],
    ],
    [
      "not a key the data already holds",
      { path: "a", limit: 5, limt: 5 },
      [{ path: ["limt"], message: "must be removed" }],
      [{ path: ["limt"], message: "must be removed" }],
    ],
    [
      "a far-off key",
      { path: "a", frobnicate: 5 },
      [{ path: ["frobnicate"], message: "must be removed" }],
      [{ path: ["frobnicate"], message: "must be removed" }],
    ],
    [
      "another kind of issue",
      { path: 7 },
      [{ path: ["path"], message: "must be a string (was number)" }],
      [{ path: ["path"], message: "must be a string (was number)" }],
    ],
  ])("%s", (_what, data, issues, want) => {
    expect(withKeySuggestions(issues, schema, data)).toEqual(want);
  });
});
