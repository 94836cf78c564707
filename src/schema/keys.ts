// The keys a JSON Schema lets an object hold at a path, for the nearest name to a key that "must be
// removed" (a tool's arguments, the config file). Read only once a refusal is being worded; the
// check itself (validate.ts, full.ts) is untouched.
import { nearest } from "../result/suggest.ts";
import type { Issue } from "./validate.ts";

type Path = readonly (string | number)[];
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * The property names declared for the object at `path` in data that `schema` describes (every branch of a union;
 * local `$ref`s followed).
 */
export function keysAt(schema: unknown, path: Path): string[] {
  let nodes = expand(schema, schema);
  for (const step of path) nodes = nodes.flatMap((n) => childrenOf(n, step)).flatMap((n) => expand(n, schema));
  return [...new Set(nodes.flatMap((n) => (isObject(n.properties) ? Object.keys(n.properties) : [])))];
}

/**
 * A node and what it stands for: the branches of anyOf/oneOf/allOf, the target of a local `$ref` (bounded: a cycle
 * ends).
 */
function expand(node: unknown, root: unknown, depth = 0): Record<string, unknown>[] {
  if (!isObject(node) || depth > 16) return [];
  const out = [node];
  for (const k of ["anyOf", "oneOf", "allOf"])
    if (Array.isArray(node[k])) out.push(...(node[k] as unknown[]).flatMap((b) => expand(b, root, depth + 1)));
  if (typeof node.$ref === "string" && node.$ref.startsWith("#"))
    out.push(...expand(pointer(root, node.$ref.slice(1)), root, depth + 1));
  return out;
}

/** The schemas that apply to `step` (a key or an index) inside `node`. */
function childrenOf(node: Record<string, unknown>, step: string | number): unknown[] {
  if (typeof step === "number") {
    const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : [];
    return step < prefix.length ? [prefix[step]] : Array.isArray(node.items) ? [node.additionalItems] : [node.items];
  }
  const props = isObject(node.properties) ? node.properties : {};
  if (Object.hasOwn(props, step)) return [props[step]];
  const patterns = isObject(node.patternProperties)
    ? Object.entries(node.patternProperties)
        .filter(([p]) => matches(p, step))
        .map(([, v]) => v)
    : [];
  return patterns.length > 0 ? patterns : [node.additionalProperties];
}

function matches(pattern: string, key: string): boolean {
  try {
    return new RegExp(pattern, "u").test(key);
  } catch {
    return false;
  }
}

/** A JSON pointer (RFC 6901) into `root`: "/$defs/x". */
function pointer(root: unknown, ptr: string): unknown {
  let at = root;
  for (const raw of ptr.split("/").slice(1)) {
    const key = decoded(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    at = isObject(at) || Array.isArray(at) ? (at as Record<string, unknown>)[key] : undefined;
  }
  return at;
}

function decoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Each issue of an unknown key (`must be removed`) with `did_you_mean`: the nearest key `schema`
 * declares beside it and `data` does not already hold. Other issues unchanged.
 */
export function withKeySuggestions(issues: readonly Issue[], schema: unknown, data: unknown): Issue[] {
  return issues.map((issue) => {
    const key = issue.path[issue.path.length - 1];
    if (typeof key !== "string" || !/must be removed/.test(issue.message)) return issue;
    const parent = issue.path.slice(0, -1);
    const holder = parent.reduce<unknown>(
      (at, step) => (isObject(at) || Array.isArray(at) ? (at as Record<string, unknown>)[step] : undefined),
      data,
    );
    const near = nearest(
      key,
      keysAt(schema, parent).filter((k) => !(isObject(holder) && Object.hasOwn(holder, k))),
    );
    return near === undefined ? issue : { ...issue, did_you_mean: near };
  });
}
