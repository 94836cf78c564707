// The complete JSON Schema validator for tools toolgate did not declare (MCP servers, Las,
// authored tools): ajv with ajv-formats, draft 2020-12 (the default, as MCP says) or draft-07 /
// 2019-09 by `$schema`, `$ref`/`$defs` included. Loaded on first use only: built-ins are checked
// by generated code (builtin-checks.ts), plain schemas by validate.ts, and a boot that calls no
// such tool never evaluates ajv.
import { compileSchema, type Issue, type Validator } from "./validate.ts";

type AjvErrorObject = {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  data?: unknown;
};
type AjvValidate = ((data: unknown) => boolean) & { errors?: AjvErrorObject[] | null };
type AjvInstance = { compile(schema: unknown): AjvValidate };
type Draft = "2020" | "2019" | "07";

const instances = new Map<string, AjvInstance>();

/**
 * One ajv per draft (and per defaults mode), made on first use. Not strict (servers write
 * `examples`, `x-…` and formats ajv does not know: those are annotations), every error collected
 * with its data (for "was …"), no logging (stdout belongs to serve's JSON-RPC), no types coerced,
 * no remote `$ref` ever fetched.
 */
function ajvFor(draft: Draft, fill: boolean): AjvInstance {
  const key = `${draft}:${fill}`;
  let ajv = instances.get(key);
  if (ajv) return ajv;
  // require, not import(): the boot's check of an authored manifest is synchronous.
  const mod =
    draft === "2020" ? require("ajv/dist/2020") : draft === "2019" ? require("ajv/dist/2019") : require("ajv");
  const Ajv = (mod.default ?? mod) as new (opts: Record<string, unknown>) => AjvInstance;
  // No meta-schema check of the schema itself (it cost ~100 ms on first use, as the SDK found too):
  // ajv's code generation still throws on a keyword it cannot compile, which is refused as before.
  ajv = new Ajv({
    strict: false,
    allErrors: true,
    verbose: true,
    logger: false,
    validateSchema: false,
    meta: false,
    validateFormats: true,
    useDefaults: fill,
    coerceTypes: false,
    code: { optimize: false },
  });
  const formats = require("ajv-formats");
  (formats.default ?? formats)(ajv);
  instances.set(key, ajv);
  return ajv;
}

/** The draft a schema's `$schema` names; null when it names none (then 2020-12, else draft-07). */
function draftOf(schema: Record<string, unknown>): Draft | null {
  const s = schema.$schema;
  if (typeof s !== "string") return null;
  if (/draft-0[4-7]\b/.test(s)) return "07";
  if (s.includes("2019-09")) return "2019";
  return "2020";
}

/**
 * The validator for a tool from another source. A schema within the subset the fast check reads
 * completely (types, properties, items, enum/const, bounds in code points, pattern, anyOf/oneOf/
 * allOf) is checked by it: ajv's first compile costs ~20 ms of a cold call on a loaded machine
 * (scripts/bench-schema.ts), which plain schemas need not pay. Anything past it (`$ref`,
 * `$defs`, formats, draft-07 tuples, …) goes to ajv. The verdict is the same either way.
 */
export function compileExternal(schema: unknown, opts: { fillDefaults?: boolean } = {}): Validator {
  let fast: Validator;
  try {
    fast = compileSchema(schema as Record<string, unknown>, { codePoints: true });
  } catch {
    return compileFull(schema, opts);
  }
  if (opts.fillDefaults === true) return fast;
  // The subset check may fill defaults into its copy; a server gets the arguments as given.
  return (data) => {
    const r = fast(data);
    return r.ok ? { ok: true, value: data } : r;
  };
}

/**
 * Compiles `schema` (a tool's input schema) into a Validator; throws with ajv's reason when the
 * schema cannot be checked (an unresolvable `$ref`, a malformed keyword). A schema that names no
 * draft is read as 2020-12 first and, if that fails, as draft-07 (`items` as an array, …).
 * `fillDefaults` (authored tools, whose scripts are promised them) fills property defaults into a
 * copy; otherwise a server gets exactly the arguments the caller gave and applies its own.
 */
export function compileFull(schema: unknown, opts: { fillDefaults?: boolean } = {}): Validator {
  const fill = opts.fillDefaults === true;
  const root = schema as Record<string, unknown>;
  const named = draftOf(root);
  // `$schema` chose the instance; left in, ajv would look the meta-schema up by that URL.
  const body = typeof root.$schema === "string" ? (({ $schema: _, ...rest }) => rest)(root) : root;
  let validate: AjvValidate;
  try {
    validate = ajvFor(named ?? "2020", fill).compile(body);
  } catch (e) {
    if (named !== null) throw e;
    try {
      validate = ajvFor("07", fill).compile(body);
    } catch {
      throw e;
    }
  }
  return (data) => {
    const value = fill ? structuredClone(data) : data;
    return validate(value) ? { ok: true, value } : { ok: false, issues: issuesOf(validate.errors ?? []) };
  };
}

const TYPE_LABEL: Record<string, string> = {
  object: "an object",
  array: "an array",
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  null: "null",
};
const BOUND_TEXT: Record<string, string> = {
  minimum: "at least",
  maximum: "at most",
  exclusiveMinimum: "more than",
  exclusiveMaximum: "less than",
  multipleOf: "a multiple of",
  minLength: "at least length",
  maxLength: "at most length",
  minItems: "at least length",
  maxItems: "at most length",
};
const kindOf = (x: unknown) => (x === null ? "null" : Array.isArray(x) ? "array" : typeof x);
const measured = (x: unknown) => (typeof x === "string" || Array.isArray(x) ? x.length : x);

/**
 * ajv's errors in the pipeline's issue shape, worded as the built-ins' (`must be a string (was
 * number)`, `must be present`): a path into the arguments and what is wrong there.
 */
export function issuesOf(errors: readonly AjvErrorObject[]): Issue[] {
  return errors.map((e) => {
    const path: (string | number)[] =
      e.instancePath === ""
        ? []
        : e.instancePath
            .slice(1)
            .split("/")
            .map((s) => {
              const key = s.replaceAll("~1", "/").replaceAll("~0", "~");
              return /^(0|[1-9][0-9]*)$/.test(key) ? Number(key) : key;
            });
    const p = e.params;
    switch (e.keyword) {
      case "required":
        return { path: [...path, String(p.missingProperty)], message: "must be present" };
      case "additionalProperties":
        return { path: [...path, String(p.additionalProperty)], message: "must be removed" };
      case "type": {
        const types = (Array.isArray(p.type) ? p.type : String(p.type).split(",")) as string[];
        return {
          path,
          message: `must be ${types.map((t) => TYPE_LABEL[t] ?? t).join(" or ")} (was ${kindOf(e.data)})`,
        };
      }
      case "enum":
        return {
          path,
          message: `must be ${((p.allowedValues ?? []) as unknown[]).map((v) => JSON.stringify(v)).join(" or ")}`,
        };
      case "const":
        return { path, message: `must be ${JSON.stringify(p.allowedValue)}` };
      case "pattern":
        return { path, message: `must match /${String(p.pattern)}/` };
    }
    if (e.keyword in BOUND_TEXT)
      return {
        path,
        message: `must be ${BOUND_TEXT[e.keyword]} ${String(p.limit ?? p.multipleOf)} (was ${String(measured(e.data))})`,
      };
    return { path, message: e.message ?? `must pass ${e.keyword}` };
  });
}

/**
 * Where in `schema` the error compileFull threw lies, when ajv does not say: the object holding
 * the unresolvable `$ref`, or the `pattern` that is not a regular expression. [] when unknown.
 */
export function whereInSchema(schema: unknown, error: unknown): (string | number)[] {
  const ref = (error as { missingRef?: unknown }).missingRef;
  const isBadPattern = (p: unknown) => {
    try {
      new RegExp(p as string, "u");
      return false;
    } catch {
      return true;
    }
  };
  const hit = (o: Record<string, unknown>) =>
    typeof ref === "string"
      ? o.$ref === ref || (typeof o.$ref === "string" && o.$ref.startsWith(ref))
      : typeof o.pattern === "string" && isBadPattern(o.pattern);
  const walk = (v: unknown, path: (string | number)[], depth: number): (string | number)[] | null => {
    if (typeof v !== "object" || v === null || depth > 64) return null;
    if (!Array.isArray(v) && hit(v as Record<string, unknown>)) return path;
    for (const [k, x] of Object.entries(v)) {
      const found = walk(x, [...path, Array.isArray(v) ? Number(k) : k], depth + 1);
      if (found) return found;
    }
    return null;
  };
  return walk(schema, [], 0) ?? [];
}
