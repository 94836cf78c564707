import { describe, expect, test } from "bun:test";
import {
  checkBoundary,
  checkDeclared,
  isSecretKey,
  MAX_DECLARED_DEPTH,
  SENSITIVE_OUTPUT_REJECTED,
  type BoundaryOptions,
  type BoundaryRule,
} from "../../src/boundary/boundary.ts";
import { keySkeleton, normalizeKey, SECRET_KEY_SUFFIXES } from "../../src/boundary/keys.ts";
import { rootsOf } from "../../src/boundary/paths.ts";
import { mustAccept, mustReject } from "./samples.ts";
import { SAMPLE_MACHINE } from "./samples-paths.ts";
import { NON_ASCII, scanText, shortAsciiRule, startsLikeJson, textRule } from "../../src/boundary/scan.ts";

const EXTERNAL: BoundaryOptions = { localPaths: true, machineRoots: SAMPLE_MACHINE };
const BUILTIN: BoundaryOptions = { localPaths: false };
const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), "utf8");

describe("samples", () => {
  test.each(mustReject)("rejects $name", (sample) => {
    if (sample.bytes !== undefined) expect(bytesOf(sample.value)).toBe(sample.bytes);
    expect(checkBoundary(sample.value, sample.opts ?? EXTERNAL)).toEqual({ rule: sample.rule, where: sample.where });
  });

  test.each(mustAccept)("accepts $name", (sample) => {
    if (sample.bytes !== undefined) expect(bytesOf(sample.value)).toBe(sample.bytes);
    expect(checkBoundary(sample.value, sample.opts ?? EXTERNAL)).toBeNull();
  });

  test("the table covers every rule with at least 60 cases", () => {
    const rules: BoundaryRule[] = ["size", "depth", "secret_key", "nul", "pem", "local_path", "duplicate_key"];
    expect(mustReject.length + mustAccept.length).toBeGreaterThanOrEqual(60);
    expect(rules.filter((rule) => !mustReject.some((s) => s.rule === rule))).toEqual([]);
  });

  test("a rejection's where never repeats the offending text", () => {
    for (const sample of mustReject.filter((s) => s.opts === undefined)) {
      expect(sample.where).not.toMatch(/\u0000|BEGIN|\/(etc|home|root|tmp|srv|var)|file:/i);
    }
  });

  test("a rejection's where names only plain identifier keys; any other key is <key#n>", () => {
    const segments = /^\$(?:\.[A-Za-z_][A-Za-z0-9_]{0,63}|<key#\d+>|\[\d+\]|<json>)*$/;
    expect(mustReject.filter((s) => !segments.test(s.where)).map((s) => [s.name, s.where])).toEqual([]);
  });
});

describe("checkBoundary", () => {
  test("the replacement result is the sealed failure", () => {
    expect(SENSITIVE_OUTPUT_REJECTED).toEqual({ status: "failed", error_code: "sensitive_output_rejected" });
    expect(Object.isFrozen(SENSITIVE_OUTPUT_REJECTED)).toBe(true);
  });

  test("built-in results skip only the local-path rule", () => {
    const value = { path: "/home/w/a.txt", "/home/w": { ok: 1 } };
    expect(checkBoundary(value, BUILTIN)).toBeNull();
    expect(checkBoundary(value, EXTERNAL)).toEqual({ rule: "local_path", where: "$.path" });
  });

  test("a key accepted for a built-in is still checked for the next origin", () => {
    expect(checkBoundary({ "/etc/x": 1 }, BUILTIN)).toBeNull();
    expect(checkBoundary({ "/etc/x": 1 }, EXTERNAL)).toEqual({ rule: "local_path", where: "$<key#0>" });
  });

  test("the first violation in document order wins, keys before their values", () => {
    expect(checkBoundary({ a: "/etc/x", b: "\u0000" }, EXTERNAL)).toEqual({ rule: "local_path", where: "$.a" });
    expect(checkBoundary({ token: "/etc/x" }, EXTERNAL)).toEqual({ rule: "secret_key", where: "$.token" });
    expect(checkBoundary({ a: "/etc/x \u0000" }, EXTERNAL)).toEqual({ rule: "nul", where: "$.a" });
    expect(checkBoundary({ a: "/etc/x -----BEGIN PRIVATE KEY-----" }, EXTERNAL)).toEqual({ rule: "pem", where: "$.a" });
  });

  test("shape comes first: too deep or too big, whichever document order meets first", () => {
    const big = "x".repeat(70_000);
    const deep = JSON.parse("[".repeat(9) + "]".repeat(9));
    expect(checkBoundary([big, deep], EXTERNAL)).toEqual({ rule: "size", where: "$" });
    expect(checkBoundary([deep, big], EXTERNAL)).toEqual({ rule: "depth", where: `$${"[0]".repeat(8)}` });
    expect(checkBoundary({ token: "x", big }, EXTERNAL)).toEqual({ rule: "size", where: "$" });
  });

  test("a cycle is a depth violation", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(checkBoundary(cycle, EXTERNAL)).toEqual({ rule: "depth", where: `$${".self".repeat(8)}` });
  });

  test("nesting deeper than the engine's stringify is a depth violation", () => {
    const deep = JSON.parse("[".repeat(200_000) + "]".repeat(200_000));
    expect(checkBoundary(deep, EXTERNAL)).toEqual({ rule: "depth", where: `$${"[0]".repeat(8)}` });
    const text = "[".repeat(30_000) + "]".repeat(30_000);
    expect(checkBoundary({ t: text }, EXTERNAL)).toEqual({ rule: "depth", where: `$.t<json>${"[0]".repeat(8)}` });
  });

  test("a bigint is a caller bug: stringify's TypeError comes through", () => {
    expect(() => checkBoundary({ n: 1n }, EXTERNAL)).toThrow(TypeError);
  });

  test("a huge value is refused without serializing it", () => {
    let serialized = 0;
    const last = { toJSON: () => ++serialized };
    const huge = { items: Array.from({ length: 200_000 }, (_, i) => ({ i })), last };
    expect([checkBoundary(huge, EXTERNAL), serialized]).toEqual([{ rule: "size", where: "$" }, 0]);
  });

  test("long keys are named by position", () => {
    const key = `${"k".repeat(70)}_token`;
    expect(checkBoundary({ ok: 1, [key]: 1 }, EXTERNAL)).toEqual({ rule: "secret_key", where: "$<key#1>" });
  });

  test("a duplicate under a key that breaks a rule does not print that key", () => {
    const text = '{"a":{"/etc/x":{"b":1,"b":2}},"a":1}';
    expect(checkBoundary({ t: text }, EXTERNAL)).toEqual({ rule: "duplicate_key", where: "$.t<json>.a<key#0>.b" });
  });
});

describe("checkDeclared", () => {
  /** A schema of `levels` objects, each the `items` of the one before. */
  const chain = (levels: number): Record<string, unknown> =>
    levels === 1 ? { type: "string" } : { type: "array", items: chain(levels - 1) };

  test.each([
    [
      "a private key as the description",
      { name: "t", description: "-----BEGIN PRIVATE KEY-----\nMIIE", inputSchema: { type: "object" } },
      { rule: "pem", where: "$.description" },
    ],
    [
      "a default under a secret-named key",
      { name: "t", inputSchema: { type: "object", properties: { password: { type: "string", default: "hunter2" } } } },
      { rule: "secret_key", where: "$.inputSchema.properties.password" },
    ],
    [
      "an API key in _meta",
      { name: "t", inputSchema: {}, _meta: { api_key: "sk-1" } },
      { rule: "secret_key", where: "$._meta.api_key" },
    ],
    [
      "a local path as the annotations' title",
      { name: "t", inputSchema: {}, annotations: { title: "/etc/shadow" } },
      { rule: "local_path", where: "$.annotations.title" },
    ],
    [
      "a path in the output schema",
      { name: "t", inputSchema: {}, outputSchema: { properties: { at: { const: "/home/u/x" } } } },
      { rule: "local_path", where: "$.outputSchema.properties.at.const" },
    ],
    [
      "a field named like a secret",
      { name: "t", inputSchema: {}, token: "x" },
      { rule: "secret_key", where: "$.token" },
    ],
    [
      "a field whose name is a path",
      { name: "t", inputSchema: {}, "/etc/x": 1 },
      { rule: "local_path", where: "$<key#2>" },
    ],
    ["a NUL in the name", { name: "t\u0000" }, { rule: "nul", where: "$.name" }],
    [
      "JSON text in a title",
      { name: "t", title: '{"cookie":"c"}' },
      { rule: "secret_key", where: "$.title<json>.cookie" },
    ],
  ])("withholds %s, naming the place from the descriptor", (_what, descriptor, violation) => {
    expect(checkDeclared(descriptor, EXTERNAL)).toEqual(violation as never);
  });

  test("ordinary descriptors pass: prose with slashes, routes, token counts, schema keywords", () => {
    const tool = {
      name: "weather",
      title: "Weather",
      description: "Light rain / drizzle; GET /users/42 and https://host/etc/x are not paths",
      inputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: {
          city: { type: "string", default: "Oslo" },
          max_tokens: { type: "integer" },
          address: { $ref: "#/$defs/address" },
        },
      },
      annotations: { readOnlyHint: true },
      _meta: { "example.com/route": "/api/v1/weather" },
    };
    expect(checkDeclared(tool, EXTERNAL)).toBeNull();
  });

  test("a path passes where the user switched the rule off for the server; every other rule holds", () => {
    expect(checkDeclared({ name: "t", annotations: { title: "/etc/shadow" } }, BUILTIN)).toBeNull();
    expect(
      checkDeclared({ name: "t", annotations: { title: "/etc/shadow" }, _meta: { api_key: "k" } }, BUILTIN),
    ).toEqual({ rule: "secret_key", where: "$._meta.api_key" });
  });

  test("each field counts its own levels, up to MAX_DECLARED_DEPTH: a generated schema deeper than a result may be passes", () => {
    expect(checkBoundary({ inputSchema: chain(13) }, EXTERNAL)).toEqual({
      rule: "depth",
      where: `$.inputSchema${".items".repeat(7)}`,
    });
    expect(checkDeclared({ name: "t", inputSchema: chain(13) }, EXTERNAL)).toBeNull();
    expect(checkDeclared({ name: "t", inputSchema: chain(MAX_DECLARED_DEPTH) }, EXTERNAL)).toBeNull();
    expect(checkDeclared({ name: "t", inputSchema: chain(MAX_DECLARED_DEPTH + 1) }, EXTERNAL)).toEqual({
      rule: "depth",
      where: `$.inputSchema${".items".repeat(MAX_DECLARED_DEPTH)}`,
    });
  });

  test("each field has its own 64 KiB", () => {
    const half = "a".repeat(40_000);
    expect(checkDeclared({ name: "t", description: half, title: half }, EXTERNAL)).toBeNull();
    expect(checkDeclared({ name: "t", description: half + half }, EXTERNAL)).toEqual({
      rule: "size",
      where: "$.description",
    });
  });

  test("a result's depth is still 8 after a declared check", () => {
    checkDeclared({ name: "t", inputSchema: chain(13) }, EXTERNAL);
    expect(checkBoundary(chain(9), EXTERNAL)).toEqual({ rule: "depth", where: `$${".items".repeat(8)}` });
  });
});

describe("isSecretKey", () => {
  test.each([
    ["token", true],
    ["my_token", true],
    ["X-Api-Key", true],
    ["Authorization", true],
    ["SET-COOKIE", true],
    ["session token", true],
    ["ｔｏｋｅｎ", true],
    [" secret\n", true],
    ["token_count", false],
    ["tokens", false],
    ["", false],
    ["key", false],
    ["api", false],
    ["passwords", false],
  ] as const)("%p is %p", (key, expected) => {
    expect(isSecretKey(key)).toBe(expected);
  });

  test("the ASCII fast path agrees with the two readings (as it is, and by skeleton)", () => {
    const decorations = ["", "my_", "X-", "a b ", "\t", "MY-", " ", "not", "m", "1", "|"];
    const tails = ["", " ", "s", "_count", "\n", "x", "m", "0", "1", "I", "%", '"', "`"];
    const confusable = (s: string) => [
      s.replace(/o/g, "0"),
      s.replace(/l/g, "1"),
      s.replace(/l/g, "|"),
      s.replace(/l/g, "I"),
      s.replace(/i/g, "I"),
      s.replace(/n/g, "m"),
      s.replace(/rn/g, "m"),
    ];
    const keys: string[] = [];
    for (const suffix of SECRET_KEY_SUFFIXES) {
      for (const variant of [
        suffix,
        suffix.toUpperCase(),
        suffix.replace(/_/g, "-"),
        suffix.replace(/_/g, " "),
        suffix.slice(1),
        ...confusable(suffix),
      ]) {
        for (const d of decorations) for (const t of tails) keys.push(d + variant + t);
      }
    }
    let skeletonOnly = 0;
    for (const key of keys) {
      const plain = SECRET_KEY_SUFFIXES.some((s) => normalizeKey(key).endsWith(s));
      const skel = SECRET_KEY_SUFFIXES.some((s) => keySkeleton(key).endsWith(s.replace(/i/g, "l")));
      if (skel && !plain) skeletonOnly++;
      expect([key, isSecretKey(key)]).toEqual([key, plain || skel]);
    }
    expect(skeletonOnly).toBeGreaterThan(100);
  });

  test.each([
    ["t\u043eken", true],
    ["\u0442oken", false],
    ["token\u034f", true],
    ["secre\u0332t", true],
    ["token\u3164", true],
    ["t\u043ekens", false],
    ["привет", false],
    ["ｔｏｋｅｎ_count", false],
    ["passw0rd", true],
    ["private\u0085key", true],
  ] as const)("%p is %p", (key, expected) => {
    expect(isSecretKey(key)).toBe(expected);
  });
});

describe("text scanners", () => {
  const ROOTS = rootsOf(SAMPLE_MACHINE);

  function stringsIn(v: unknown): string[] {
    if (typeof v === "string") return v.length > 2000 ? [] : [v];
    if (typeof v !== "object" || v === null) return [];
    return Object.entries(v).flatMap(([k, x]) => [k, ...stringsIn(x)]);
  }
  const corpus = [
    ...mustReject.map((s) => s.value),
    ...mustAccept.map((s) => s.value),
    "a\u0000/etc/x",
    "----",
    "-----BEGIN",
    "/",
    "file:",
    "  (FiLe:x",
    "a\u2028/etc/x",
    "\ufeff/etc/x",
    "x\u200b/etc/y",
    "((((",
    "`",
    " {",
    "\t[1]",
    '  "a"',
    "x /dev/fd/1 /dev/fd/",
    "/dev/",
    "/etc/",
    "//",
    "a=/",
    "file:/",
    ":file:",
    "FILE:",
  ].flatMap(stringsIn);

  test("the one-pass scan of short ASCII agrees with the jumps of the long one, padded past the short limit too", () => {
    const general = (t: string, roots: typeof ROOTS | null) => (startsLikeJson(t) ? "json" : textRule(t, roots));
    for (const s of corpus) {
      for (const text of [s, s + " ".repeat(200), " ".repeat(200) + s]) {
        for (const roots of [ROOTS, null]) {
          const short = shortAsciiRule(text, roots);
          if (short === NON_ASCII) continue;
          expect([text, short]).toEqual([text, general(text, roots)]);
          expect([text, scanText(text, roots, true)]).toEqual([text, general(text, roots)]);
        }
      }
    }
  });

  test("the scan with the NUL and PEM gate closed agrees with the full scan on NUL- and dash-free text", () => {
    for (const s of corpus.filter((x) => !x.includes("\u0000") && !x.includes("----"))) {
      for (const text of [s, s + " ".repeat(200)])
        expect([text, scanText(text, ROOTS, false)]).toEqual([text, scanText(text, ROOTS, true)]);
    }
  });
});

describe("this machine's roots", () => {
  test("every folder (or link) at the top of / is a root when no machine is given; the samples' machine is not this one", async () => {
    const { readdirSync } = await import("node:fs");
    const names = readdirSync("/", { withFileTypes: true })
      .filter((e) => e.isDirectory() || e.isSymbolicLink())
      .map((e) => e.name);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      expect([name, checkBoundary({ a: `/${name}/x` }, { localPaths: true })]).toEqual([
        name,
        { rule: "local_path", where: "$.a" },
      ]);
    }
    const other = `no-such-top-folder-${process.pid}`;
    expect(checkBoundary({ a: `/${other}/x` }, { localPaths: true })).toBeNull();
    expect(checkBoundary({ a: `/${other}/x` }, { localPaths: true, machineRoots: [other] })).toEqual({
      rule: "local_path",
      where: "$.a",
    });
  });

  test("a key's verdict under another machine's roots is not kept for this one", () => {
    const other = `only-elsewhere-${process.pid}`;
    expect(checkBoundary({ [`/${other}/x`]: 1 }, { localPaths: true })).toBeNull();
    expect(checkBoundary({ [`/${other}/x`]: 1 }, { localPaths: true, machineRoots: [other] })).toEqual({
      rule: "local_path",
      where: "$<key#0>",
    });
    expect(checkBoundary({ [`/${other}/x`]: 1 }, { localPaths: true })).toBeNull();
  });
});
