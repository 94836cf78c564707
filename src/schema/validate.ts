// A JSON Schema check compiled at run time, for schemas only known then: an MCP server's or an
// authored tool's plain input schema (full.ts's compileExternal: about 10x faster to a first
// verdict than ajv compiling it, scripts/bench-validate.ts), an authored manifest, and a built-in
// whose schema fills a default. The schemas toolgate declares itself are checked by generated code
// (builtin-checks.ts). Only the keywords arktype emits are understood; any other keyword makes
// `compileSchema` throw, because a schema we cannot check fully is a bug (fail closed).

export type JsonSchema = boolean | { readonly [keyword: string]: unknown };
export interface Issue {
  path: (string | number)[];
  message: string;
  /** An unknown key's nearest declared one (schema/keys.ts), when one is close: suggested, never substituted. */
  did_you_mean?: string;
}
export type Validator = (data: unknown) => { ok: true; value: unknown } | { ok: false; issues: Issue[] };

type Path = (string | number)[];
/** Pushes issues and returns the value with defaults filled in: `data` itself when nothing was filled. */
type Check = (data: unknown, path: Path, issues: Issue[]) => unknown;
// fits: the type/const/enum gate alone; fills: a default may be filled somewhere below.
type Node = { check: Check; fits: (data: unknown) => boolean; fills: boolean; label: string };

const KEYWORDS = new Set([
  ...["$schema", "description", "title", "examples", "default", "format", "type", "enum", "const"],
  ...["properties", "required", "additionalProperties", "patternProperties", "items", "prefixItems"],
  ...["anyOf", "allOf", "oneOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"],
  ...["multipleOf", "minLength", "maxLength", "pattern", "minItems", "maxItems"],
]);
// arktype sets `format` only as an annotation next to the pattern (or consts) that carries the check.
const ANNOTATED_FORMATS = new Set(["email", "uuid", "ipv4", "ipv6"]);
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
const TYPES: Record<string, [label: string, test: (x: unknown) => boolean]> = {
  object: ["an object", isObject],
  array: ["an array", Array.isArray],
  string: ["a string", (x) => typeof x === "string"],
  number: ["a number", (x) => typeof x === "number" && !Number.isNaN(x)], // arktype rejects NaN
  integer: ["an integer", Number.isInteger],
  boolean: ["a boolean", (x) => typeof x === "boolean"],
  null: ["null", (x) => x === null],
};
const asNumber = (d: unknown) => (typeof d === "number" ? d : undefined);
// Lengths count UTF-16 code units (`.length`), as arktype does, where JSON Schema says code points.
const stringLength = (d: unknown) => (typeof d === "string" ? d.length : undefined);
// JSON Schema's own reading, for schemas toolgate did not export (MCP, authored): code points.
const codePointLength = (d: unknown) => {
  if (typeof d !== "string") return undefined;
  let n = 0;
  for (const _ of d) n++;
  return n;
};
/** Set only while compileSchema runs (synchronously): string lengths count code points. */
let countCodePoints = false;
const arrayLength = (d: unknown) => (Array.isArray(d) ? d.length : undefined);
const BOUNDS: [string, (d: unknown) => number | undefined, (n: number, rule: number) => boolean, string][] = [
  ["minimum", asNumber, (n, r) => n >= r, "at least"],
  ["maximum", asNumber, (n, r) => n <= r, "at most"],
  ["exclusiveMinimum", asNumber, (n, r) => n > r, "more than"],
  ["exclusiveMaximum", asNumber, (n, r) => n < r, "less than"],
  ["multipleOf", asNumber, (n, r) => n % r === 0, "a multiple of"], // arktype's test: no float tolerance
  ["minLength", stringLength, (n, r) => n >= r, "at least length"],
  ["maxLength", stringLength, (n, r) => n <= r, "at most length"],
  ["minItems", arrayLength, (n, r) => n >= r, "at least length"],
  ["maxItems", arrayLength, (n, r) => n <= r, "at most length"],
];
const NO_DEFAULT = Symbol("no default");

/** `codePoints`: string lengths count code points, as JSON Schema says (schemas from other sources). */
export function compileSchema(schema: JsonSchema, opts: { codePoints?: boolean } = {}): Validator {
  let root!: Node;
  const before = countCodePoints;
  countCodePoints = opts.codePoints === true;
  try {
    root = compile(schema, "#");
  } finally {
    countCodePoints = before;
  }
  return (data) => {
    const issues: Issue[] = [];
    const value = root.check(data, [], issues);
    if (issues.length > 0) return { ok: false, issues };
    return { ok: true, value: root.fills ? cloneJson(value) : value };
  };
}

function compile(schema: JsonSchema, at: string, fillsDefault = false): Node {
  if (typeof schema === "boolean") {
    const check: Check = (d, p, is) => (schema || is.push({ path: [...p], message: "must be removed" }), d);
    return { check, fits: () => schema, fills: false, label: schema ? "anything" : "nothing" };
  }
  need(isObject(schema), at, "a schema must be an object or a boolean");
  for (const k in schema) need(KEYWORDS.has(k), at, `unsupported keyword "${k}"`);
  const s = schema as Record<string, unknown>;
  // A default anywhere else would be ignored here but applied by arktype.
  need(fillsDefault || !("default" in s), at, "default outside a property or tuple element");
  const labels: string[] = [];
  const gates: ((d: unknown) => boolean)[] = [];
  const steps: Check[] = [];
  const push = (message: string, p: Path, is: Issue[]) => is.push({ path: [...p], message });

  if (s.format !== undefined) {
    need(ANNOTATED_FORMATS.has(s.format as string), at, `unsupported format ${JSON.stringify(s.format)}`);
    need(
      ["pattern", "const", "enum", "anyOf"].some((k) => k in s),
      at,
      "format without a pattern",
    );
  }
  if (s.type !== undefined) {
    const names = Array.isArray(s.type) ? s.type : [s.type];
    need(names.length > 0 && names.every((n) => Object.hasOwn(TYPES, n)), at, "bad type");
    const tests = names.map((n) => TYPES[n]![1]);
    labels.push(names.map((n) => TYPES[n]![0]).join(" or "));
    gates.push(tests.length === 1 ? tests[0]! : (d) => tests.some((t) => t(d)));
  }
  for (const key of ["const", "enum"] as const) {
    if (!(key in s)) continue;
    const values = key === "const" ? [s.const] : s.enum;
    need(Array.isArray(values) && values.every(isPrimitive), at, `only a list of primitives is supported in ${key}`);
    labels.push(values.map((v) => JSON.stringify(v)).join(" or "));
    gates.push((d) => values.includes(d));
  }
  const label = labels.join(" and ") || "valid";

  for (const [key, byUnits, ok, text] of BOUNDS) {
    const measure = byUnits === stringLength && countCodePoints ? codePointLength : byUnits;
    const rule = s[key];
    if (rule === undefined) continue;
    need(typeof rule === "number" && Number.isFinite(rule), at, `bad ${key}`);
    need(
      measure === asNumber ? key !== "multipleOf" || rule > 0 : Number.isInteger(rule) && rule >= 0,
      at,
      `bad ${key}`,
    );
    const message = `must be ${text} ${rule}`;
    steps.push((d, p, is) => {
      const n = measure(d);
      if (n !== undefined && !ok(n, rule)) push(`${message} (was ${n})`, p, is);
      return d;
    });
  }
  if (s.pattern !== undefined) {
    const re = regex(s.pattern, at);
    const message = `must match ${re}`;
    steps.push((d, p, is) => (typeof d === "string" && !re.test(d) && push(message, p, is), d));
  }

  const filling: Node[] = [];
  const add = (node: Node | undefined) => node && (steps.push(node.check), node.fills && filling.push(node));
  add(objectNode(s, at));
  add(arrayNode(s, at));
  for (const kind of ["anyOf", "oneOf", "allOf"] as const) add(applicatorNode(s, kind, at));
  // Each step sees the original data; a second step that fills defaults would see the wrong value.
  need(filling.length <= 1, at, "defaults in more than one branch of one schema");

  const fits =
    gates.length === 0 ? () => true : gates.length === 1 ? gates[0]! : (d: unknown) => gates.every((g) => g(d));
  const expected = `must be ${label}`;
  const check: Check = (data, path, issues) => {
    if (!fits(data)) return (push(`${expected} (was ${kindOf(data)})`, path, issues), data);
    let value = data;
    for (let i = 0; i < steps.length; i++) {
      const v = steps[i]!(data, path, issues);
      if (v !== data) value = v;
    }
    return value;
  };
  return { check, fits, fills: filling.length > 0, label };
}

function objectNode(s: Record<string, unknown>, at: string): Node | undefined {
  if (![s.properties, s.required, s.additionalProperties, s.patternProperties].some((x) => x !== undefined)) return;
  const required = (s.required ?? []) as string[];
  need(Array.isArray(required) && required.every((k) => typeof k === "string"), at, "bad required");
  need(
    [s.properties, s.patternProperties].every((x) => x === undefined || isObject(x)),
    at,
    "bad properties",
  );
  const props = Object.entries((s.properties ?? {}) as Record<string, JsonSchema>).map(([key, v]) => ({
    key,
    node: compile(v, `${at}/properties/${key}`, true),
    dflt: defaultOf(v),
  }));
  const patterns = Object.entries((s.patternProperties ?? {}) as Record<string, JsonSchema>).map(([p, v]) => ({
    re: regex(p, at),
    node: compile(v, `${at}/patternProperties/${p}`),
  }));
  const extra =
    s.additionalProperties === undefined
      ? undefined
      : compile(s.additionalProperties as JsonSchema, `${at}/additionalProperties`);
  const declared = new Set(props.map((p) => p.key));
  const fills =
    props.some((p) => p.node.fills || p.dflt !== NO_DEFAULT) || patterns.some((p) => p.node.fills) || !!extra?.fills;

  // Copy on write: a branch of a union that fills a default and then fails leaves no trace.
  const check: Check = (data, path, issues) => {
    if (!isObject(data)) return data;
    let out: Record<string, unknown> | undefined;
    // Indexed loops: for-of costs a few ns per loop in JSC, and this runs per object per call.
    for (let i = 0; i < required.length; i++) {
      if (!Object.hasOwn(data, required[i]!))
        issues.push({ path: [...path, required[i]!], message: "must be present" });
    }
    for (let i = 0; i < props.length; i++) {
      const { key, node, dflt } = props[i]!;
      let v: unknown;
      if (Object.hasOwn(data, key)) {
        if ((v = visit(node, data[key], key, path, issues)) === data[key]) continue;
      } else if (dflt === NO_DEFAULT) continue;
      else v = dflt; // cloned with the whole result in compileSchema
      out = put(out ?? { ...data }, key, v); // spread defines own keys, so "__proto__" stays data
    }
    if (patterns.length === 0 && !extra) return out ?? data;
    // patternProperties apply to declared keys too; additionalProperties only to the rest.
    const keys = Object.keys(data);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      let v = (out ?? data)[k];
      let matched = declared.has(k);
      for (let j = 0; j < patterns.length; j++) {
        if (patterns[j]!.re.test(k)) (matched = true), (v = visit(patterns[j]!.node, v, k, path, issues));
      }
      if (!matched && extra) v = visit(extra, v, k, path, issues);
      if (v !== (out ?? data)[k]) out = put(out ?? { ...data }, k, v);
    }
    return out ?? data;
  };
  return { check, fits: () => true, fills, label: "an object" };
}

function arrayNode(s: Record<string, unknown>, at: string): Node | undefined {
  if (s.items === undefined && s.prefixItems === undefined) return;
  need(s.prefixItems === undefined || Array.isArray(s.prefixItems), at, "bad prefixItems");
  const prefix = ((s.prefixItems ?? []) as JsonSchema[]).map((v, i) => ({
    node: compile(v, `${at}/prefixItems/${i}`, true),
    dflt: defaultOf(v),
  }));
  const rest = s.items === undefined ? undefined : compile(s.items as JsonSchema, `${at}/items`);
  const fills = prefix.some((p) => p.node.fills || p.dflt !== NO_DEFAULT) || !!rest?.fills;
  const check: Check = (data, path, issues) => {
    if (!Array.isArray(data)) return data;
    let out: unknown[] | undefined;
    for (let i = 0; i < data.length; i++) {
      const node = i < prefix.length ? prefix[i]!.node : rest;
      if (!node) break;
      const v = visit(node, data[i], i, path, issues);
      if (v !== data[i]) (out ??= data.slice())[i] = v;
    }
    // A tuple's missing trailing elements that have defaults are filled in order, as arktype does.
    for (let i = data.length; i < prefix.length && prefix[i]!.dflt !== NO_DEFAULT; i++)
      (out ??= data.slice()).push(prefix[i]!.dflt);
    return out ?? data;
  };
  return { check, fits: () => true, fills, label: "an array" };
}

function visit(node: Node, value: unknown, key: string | number, path: Path, issues: Issue[]): unknown {
  path.push(key);
  const next = node.check(value, path, issues);
  path.pop();
  return next;
}

function put(o: Record<string, unknown>, k: string, v: unknown): Record<string, unknown> {
  if (k === "__proto__")
    Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
  return o;
}

const defaultOf = (s: JsonSchema): unknown => (isObject(s) && "default" in s ? s.default : NO_DEFAULT);

function applicatorNode(s: Record<string, unknown>, kind: "anyOf" | "oneOf" | "allOf", at: string): Node | undefined {
  if (s[kind] === undefined) return;
  need(Array.isArray(s[kind]) && s[kind].length > 0, at, `bad ${kind}`);
  const branches = (s[kind] as JsonSchema[]).map((b, i) => compile(b, `${at}/${kind}/${i}`));
  const fills = branches.some((b) => b.fills);
  need(kind !== "allOf" || !fills, at, "defaults inside allOf");
  const label = [...new Set(branches.map((b) => b.label))].join(" or ");
  const check: Check = (data, path, issues) => {
    const passed: unknown[] = [];
    let closest: Issue[] | undefined;
    for (const branch of branches) {
      const sub: Issue[] = [];
      const v = branch.check(data, path, sub);
      if (sub.length === 0) {
        if (kind === "anyOf") return v;
        passed.push(v);
      } else if (kind === "allOf") issues.push(...sub);
      else if (branch.fits(data) && (!closest || sub.length < closest.length)) closest = sub;
    }
    if (kind === "allOf") return data; // allOf never fills (refused above)
    if (passed.length === 1) return passed[0];
    if (passed.length > 1)
      issues.push({ path: [...path], message: `must match exactly one of ${label} (matched ${passed.length})` });
    else if (closest)
      issues.push(...closest); // the branch of the right shape says what is wrong inside it
    else issues.push({ path: [...path], message: `must be ${label} (was ${kindOf(data)})` });
    return data;
  };
  return { check, fits: (d) => branches.some((b) => b.fits(d)), fills, label };
}

/** Like arktype: no flags (so no `u`), unanchored `test`. */
function regex(pattern: unknown, at: string): RegExp {
  need(typeof pattern === "string", at, "pattern must be a string");
  try {
    return new RegExp(pattern);
  } catch (e) {
    return refuse(at, `invalid pattern ${JSON.stringify(pattern)}: ${(e as Error).message}`);
  }
}

const isPrimitive = (v: unknown) => v === null || ["string", "number", "boolean"].includes(typeof v);

function need(condition: boolean, at: string, message: string): asserts condition {
  if (!condition) refuse(at, message);
}

function refuse(at: string, message: string): never {
  throw new Error(`compileSchema: ${message} at ${at}`);
}

const kindOf = (x: unknown) => (x === null ? "null" : Array.isArray(x) ? "array" : Number.isNaN(x) ? "NaN" : typeof x);

function cloneJson(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(cloneJson);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) put(out, k, cloneJson(v[k]));
  return out;
}
