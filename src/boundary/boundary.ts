// The output boundary (docs/boundary.md): a pure check of a raw
// tool result after the adapter and before the journal and every view. It names the first rule
// broken and where, never the value; the caller replaces the whole result.
import { isSecretKey } from "./keys.ts";
import { MACHINE_ROOTS, rootsOf, type Roots } from "./paths.ts";
import { appTextRule, appTexts, withoutAppTexts } from "./apps.ts";
import { jsonText, mayHoldNulOrPem, scanText, textRule } from "./scan.ts";
import { findDuplicateKey, type Segment } from "../schema/duplicate-key.ts";

export { isSecretKey } from "./keys.ts";

export type BoundaryRule = "size" | "depth" | "secret_key" | "nul" | "pem" | "local_path" | "duplicate_key";

/**
 * `where` is a path from `$`: `.key` for an object key that is a plain identifier
 * (`[A-Za-z_][A-Za-z0-9_]{0,63}`), `<key#i>` for any other (the i-th key of its object, from 0),
 * `[i]` for array items, `<json>` where a JSON-looking string was parsed. So a path never carries
 * a key's text that could be the secret or the text it reports.
 */
export interface BoundaryViolation {
  rule: BoundaryRule;
  where: string;
}

/**
 * `localPaths: false` for built-in tools (they speak workspace-relative paths) and a server the
 * user let through; true for every other origin. `machineRoots` stands for the top-level folders
 * of this machine's `/` (read once at the first need when absent): tests give another machine's.
 */
export interface BoundaryOptions {
  localPaths: boolean;
  machineRoots?: readonly string[];
  /** A relayed resources/read: an MCP App's `ui://` HTML is checked as apps.ts says. */
  apps?: boolean;
}

/** What a violating result is replaced with, whole. */
export const SENSITIVE_OUTPUT_REJECTED = Object.freeze({
  status: "failed",
  error_code: "sensitive_output_rejected",
} as const);

export const MAX_OUTPUT_BYTES = 65536;
export const MAX_OUTPUT_DEPTH = 8;
/**
 * How deep one field of a declared descriptor may nest. A JSON Schema spends two levels on each
 * nested object or array item, so the schemas servers generate run past 8 (server-filesystem's
 * read_media_file 10, excel-mcp-server's excel_format_range 13); every other rule reads all of it.
 */
export const MAX_DECLARED_DEPTH = 32;

/** A violation whose `where` is being built while the walk unwinds (so a clean walk builds no paths). */
interface Found {
  rule: BoundaryRule;
  where: string;
}

/**
 * Check one raw result. Rules in order:
 * 1. shape, in document order: the first container at level 9 is `depth`; a running lower bound
 *    of the serialized size passing 64 KiB is `size` (so nothing huge or deep is serialized);
 * 2. `size`, exactly: compact JSON.stringify in UTF-8 bytes;
 * 3. a walk in document order: each object key (secret_key, then its text as a string) before
 *    its value; a string that looks like JSON and parses as an independent value (these same
 *    steps, then duplicate_key), reported under `<json>`; any other string for nul > pem > local_path.
 *
 * Everything follows JSON.stringify, because a serialized result is what every view shows:
 * `toJSON` is honoured (and assumed deterministic); object properties holding undefined, a
 * function or a symbol are skipped with their keys; in arrays those become null. Top-level
 * undefined serializes to nothing and passes. A cycle is a depth violation. A bigint makes this
 * throw JSON.stringify's TypeError: no view could print such a result, so it is a caller bug.
 */
export function checkBoundary(value: unknown, opts: BoundaryOptions): BoundaryViolation | null {
  const apps = opts.apps === true ? appTexts(value) : null;
  if (apps !== null) return checkBoundary(withoutAppTexts(apps), { ...opts, apps: false }) ?? appTextRule(apps);
  const mode = begin(opts);
  const binary = opts.localPaths ? binaryPayloads(value) : null;
  const found = checkIndependent(value, mode, -1, binary);
  return found === null ? null : { rule: found.rule, where: `$${found.where}` };
}

/**
 * Check what a server declared: one tool, resource, template or prompt as it listed it. Each field
 * (`description`, `inputSchema`, `annotations`, `_meta`, ...) is checked as a result is, with its
 * own 64 KiB and MAX_DECLARED_DEPTH levels, and each field's name as a result's keys are; `where`
 * starts at the descriptor (`$.inputSchema.properties.password`).
 */
export function checkDeclared(
  fields: Readonly<Record<string, unknown>>,
  opts: BoundaryOptions,
): BoundaryViolation | null {
  const mode = begin(opts, MAX_DECLARED_DEPTH);
  const keys = Object.keys(fields);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const item = fields[k];
    if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
    const inKey = checkKey(k, i, mode | NUL_OR_PEM);
    if (inKey !== null) return { rule: inKey.rule, where: `$${inKey.where}` };
    const found = checkIndependent(item, mode, -1);
    if (found !== null) return { rule: found.rule, where: `$${keySegment(k, i)}${found.where}` };
  }
  return null;
}

/** Sets the roots and depth of a check about to run; its walk mode. */
function begin(opts: BoundaryOptions, depth = MAX_OUTPUT_DEPTH): number {
  maxDepth = depth;
  roots = opts.machineRoots === undefined ? MACHINE_ROOTS : rootsOf(opts.machineRoots);
  pathRoots = opts.localPaths ? roots : null;
  return opts.localPaths ? LOCAL_PATHS : 0;
}

/**
 * The roots of the check under way, the same when its path rule applies, and its depth (each check is synchronous
 * and sets them first).
 */
let roots: Roots = MACHINE_ROOTS;
let pathRoots: Roots | null = null;
let maxDepth = MAX_OUTPUT_DEPTH;

/** Which key of which object holds a binary payload the walk skips: object → key. */
type Binary = ReadonlyMap<object, string> | null;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const isBase64 = (v: unknown): v is string => typeof v === "string" && v.length % 4 === 0 && BASE64.test(v);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The base64 `data` of MCP `image`/`audio` content and a resource's `blob` (embedded in a tool
 * result's `content`, or in a resources/read result's `contents`): binary, not text (a JPEG's
 * base64 starts `/9j/`). Only strings that are base64 qualify, and base64 has no NUL, dash or
 * whitespace, so skipping them hides no NUL, PEM marker or JSON; anything else is checked as before.
 */
function binaryPayloads(value: unknown): Binary {
  if (!isRecord(value)) return null;
  let out: Map<object, string> | null = null;
  if (Array.isArray(value.content)) {
    for (const c of value.content) {
      if (!isRecord(c)) continue;
      if ((c.type === "image" || c.type === "audio") && isBase64(c.data)) (out ??= new Map()).set(c, "data");
      else if (c.type === "resource" && isRecord(c.resource) && isBase64(c.resource.blob))
        (out ??= new Map()).set(c.resource, "blob");
    }
  }
  if (Array.isArray(value.contents)) {
    for (const c of value.contents) if (isRecord(c) && isBase64(c.blob)) (out ??= new Map()).set(c, "blob");
  }
  return out;
}

/** Walk mode bits: apply the local-path rule; some string may hold a NUL or PEM marker. */
const LOCAL_PATHS = 1;
const NUL_OR_PEM = 2;

/**
 * Steps 1–3 for one value. `sourceLength` is the length of the JSON text the value was parsed
 * from, or -1. Compact JSON.stringify writes at most 6 UTF-8 bytes per source char (`1e20` grows
 * to 21 digits, a raw lone surrogate to a 6-char escape; all else shrinks or keeps its size), so
 * a short enough source needs no second stringify; its NUL/PEM bit then comes from the enclosing
 * value's serialization, which contains the source text.
 */
function checkIndependent(value: unknown, mode: number, sourceLength: number, binary: Binary = null): Found | null {
  const outline = shape(value, 0, { bytes: MAX_OUTPUT_BYTES }, "");
  if (outline !== null) return outline;
  if (sourceLength < 0 || sourceLength * 6 > MAX_OUTPUT_BYTES) {
    const json = JSON.stringify(value); // acyclic and within the depth by now: only a bigint throws
    if (json !== undefined && exceedsBytes(json)) return { rule: "size", where: "" };
    if (sourceLength < 0) mode |= json === undefined || mayHoldNulOrPem(json) ? NUL_OR_PEM : 0;
  }
  return walk(value, 0, mode, "", binary);
}

/**
 * Step 1. `budget.bytes` counts down a lower bound of the serialized size: 2 per container,
 * length + 2 per string, length + 3 per key, 1 per other value, so the work is bounded for any input.
 */
function shape(value: unknown, level: number, budget: { bytes: number }, key: string | number): Found | null {
  let v = value;
  if (typeof v === "object" && v !== null) {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") v = toJSON.call(v, String(key));
  }
  if (typeof v === "string") return (budget.bytes -= v.length + 2) < 0 ? { rule: "size", where: "" } : null;
  if (typeof v !== "object" || v === null) return --budget.bytes < 0 ? { rule: "size", where: "" } : null;
  if (level === maxDepth) return { rule: "depth", where: "" };
  if ((budget.bytes -= 2) < 0) return { rule: "size", where: "" };
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const found = shape(v[i], level + 1, budget, i);
      if (found !== null) {
        if (found.rule === "depth") found.where = `[${i}]${found.where}`;
        return found;
      }
    }
    return null;
  }
  const record = v as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const item = record[k];
    if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
    if ((budget.bytes -= k.length + 3) < 0) return { rule: "size", where: "" };
    const found = shape(item, level + 1, budget, k);
    if (found !== null) {
      if (found.rule === "depth") found.where = keySegment(k, i) + found.where;
      return found;
    }
  }
  return null;
}

/** UTF-8 length of `json` > the limit. Well-formed UTF-16 (stringify escapes lone surrogates) is 1–3 bytes a unit. */
function exceedsBytes(json: string): boolean {
  if (json.length > MAX_OUTPUT_BYTES) return true;
  if (json.length * 3 <= MAX_OUTPUT_BYTES) return false;
  return Buffer.byteLength(json, "utf8") > MAX_OUTPUT_BYTES;
}

function walk(value: unknown, level: number, mode: number, key: string | number, binary: Binary): Found | null {
  let v = value;
  if (typeof v === "string") return checkString(v, mode);
  if (typeof v !== "object" || v === null) return null;
  const toJSON = (v as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function") {
    v = toJSON.call(v, String(key));
    if (typeof v === "string") return checkString(v, mode);
    if (typeof v !== "object" || v === null) return null;
  }
  if (level === maxDepth) return { rule: "depth", where: "" }; // shape passed; guards a fickle toJSON
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const found = walk(v[i], level + 1, mode, i, binary);
      if (found !== null) {
        found.where = `[${i}]${found.where}`;
        return found;
      }
    }
    return null;
  }
  const record = v as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const item = record[k];
    if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
    if (roots !== MACHINE_ROOTS || !CLEAN_KEYS.has(k)) {
      const inKey = checkKey(k, i, mode);
      if (inKey !== null) return inKey;
    }
    if (binary !== null && binary.get(record) === k) continue;
    const found = walk(item, level + 1, mode, k, binary);
    if (found !== null) {
      found.where = keySegment(k, i) + found.where;
      return found;
    }
  }
  return null;
}

/**
 * Keys already seen to pass every key check under the strictest mode on this machine. Result keys
 * repeat across objects, and the verdict depends on the key alone, so this bounded memo only saves work.
 */
const CLEAN_KEYS = new Set<string>();
const CLEAN_KEYS_MAX = 4096;

/** The i-th key of an object: the key rule, then the string rules on its text. */
function checkKey(k: string, i: number, mode: number): Found | null {
  if (isSecretKey(k)) return { rule: "secret_key", where: keySegment(k, i) };
  if (scanText(k, roots, true) === null) {
    if (roots !== MACHINE_ROOTS) return null;
    if (CLEAN_KEYS.size >= CLEAN_KEYS_MAX) CLEAN_KEYS.clear();
    CLEAN_KEYS.add(k);
    return null;
  }
  const found = checkString(k, mode);
  if (found !== null) found.where = `<key#${i}>${found.where}`;
  return found;
}

/**
 * A string is read as JSON when it looks like JSON and parses (its parsed value is checked, not its
 * raw text, whose escapes such as a literal `\n` would glue tokens together), else as text.
 */
function checkString(s: string, mode: number): Found | null {
  const verdict = scanText(s, pathRoots, (mode & NUL_OR_PEM) !== 0);
  if (verdict === null) return null;
  if (verdict !== "json") return { rule: verdict, where: "" };
  const text = jsonText(s);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const rule = textRule(s, pathRoots);
    return rule === null ? null : { rule, where: "" };
  }
  return checkJsonValue(text, parsed, mode);
}

/** A JSON-looking string that parsed, checked as its own value, then for keys repeated in one object. */
function checkJsonValue(text: string, parsed: unknown, mode: number): Found | null {
  let found = checkIndependent(parsed, mode, text.length);
  if (found === null && typeof parsed === "object" && parsed !== null && text.indexOf(":") !== -1) {
    const path = findDuplicateKey(text);
    if (path !== null) found = { rule: "duplicate_key", where: renderSegments(path) };
  }
  if (found !== null) found.where = `<json>${found.where}`;
  return found;
}

/** A key a path may name: a plain identifier of at most 64 chars. */
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * `.key` for a plain identifier, `<key#i>` for any other key (i its position among the object's
 * keys, from 0): the place is shown on stderr, journaled and exported with a span, so it never
 * quotes a key that could itself be the secret (`sk-live-…`, a PEM marker, a path, JSON).
 */
function keySegment(key: string, index: number): string {
  return PLAIN_KEY.test(key) ? `.${key}` : `<key#${index}>`;
}

function renderSegments(path: Segment[]): string {
  let out = "";
  for (const s of path) out += typeof s === "number" ? `[${s}]` : keySegment(s.key, s.index);
  return out;
}
