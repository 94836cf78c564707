// Reads and checks authored-tool manifests (`<dir>/<folder>/tool.json`) at boot. Every problem is
// one refusal naming the file, line:column and key; nothing here runs a tool. Loaded only when the
// authored-tools folder exists, so the start-up path without one never pays for it.
import { accessSync, constants, existsSync, readdirSync, readFileSync, type Stats, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { Node, ParseError } from "jsonc-parser";
import { resolveReal, which } from "../fs/real-path.ts";
import type { PermKind } from "../permission/types.ts";
import { ok, refuse, type Outcome } from "../result/result.ts";
import { compileFull, whereInSchema } from "../schema/full.ts";
import { compileSchema, type Validator } from "../schema/validate.ts";
import { withKeySuggestions } from "../schema/keys.ts";
import { EFFECTS, type ApprovalPolicy, type EffectClass } from "./declare.ts";
import { authoredIdentity } from "./authored-identity.ts";
import { NAME_RULE, NAME_RULE_TEXT } from "./catalog.ts";
import { canonicalJson, sha256Hex } from "./canonical.ts";

export const MANIFEST_NAME = "tool.json";
export const DEFAULT_COMMAND = ["./run"] as const;
export const DEFAULT_TIMEOUT_SECS = 60;
/** As long as a gate may run (gates.timeout_secs' default); the call's deadline follows the tool's. */
export const MAX_TIMEOUT_SECS = 600;
export const NEED_KINDS = ["read", "write", "run", "net", "env"] as const satisfies readonly PermKind[];

export interface Manifest {
  /** Absolute path of the tool.json. */
  readonly path: string;
  /** Absolute path of the tool's folder. */
  readonly folder: string;
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
  /** Undeclared means irreversible (the catalog fills it in). */
  readonly effect: EffectClass | undefined;
  /**
   * As the manifest says (default "required"); "never" holds only where the trust covers this manifest (authored.ts).
   */
  readonly approval: ApprovalPolicy;
  /** Declared static needs; read/write paths as written (relative ones are workspace-relative). */
  readonly needs: Readonly<Partial<Record<PermKind, readonly string[]>>>;
  /** What is spawned: folder files workspace-relative when inside the workspace (so errors carry no absolute path). */
  readonly argv: readonly string[];
  /** The real path of the program argv[0] starts: the run permission a call needs. */
  readonly program: string;
  readonly timeoutSecs: number;
  /** What runs (manifest, argv, program, file digests): part of the tool's digest. */
  readonly identity: Record<string, unknown>;
  /** sha256 of the canonical identity: what `toolgate trust` records for this tool. */
  readonly digest: string;
}

export interface ManifestOptions {
  /** The workspace: the child's working folder, and the base of relative read/write needs. */
  readonly workspace: string;
  /** The launcher's fixed PATH, where a bare program name in `command` is looked up. */
  readonly pathEnv: string;
  /** A problem with one declared need value (a reserved variable, a malformed host), or null. Injected by boot. */
  readonly checkNeed?: (kind: PermKind, value: string) => string | null;
}

const strings = { type: "array", items: { type: "string", minLength: 1 } };
const MANIFEST_SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string" },
    description: { type: "string", minLength: 1 },
    input_schema: { type: "object" },
    effect: { enum: [...EFFECTS] },
    approval: { enum: ["required", "never"] },
    needs: {
      type: "object",
      properties: Object.fromEntries(NEED_KINDS.map((k) => [k, strings])),
      additionalProperties: false,
    },
    command: { ...strings, minItems: 1 },
    timeout_secs: { type: "number", exclusiveMinimum: 0, maximum: MAX_TIMEOUT_SECS },
  },
  required: ["name", "description", "input_schema"],
  additionalProperties: false,
};
// jsonc-parser, loaded on the first manifest read (its module builds tables as it loads), as src/config/file.ts does.
const jsonc = (): typeof import("jsonc-parser") => require("jsonc-parser/lib/esm/main.js");
// Compiled on the first manifest read: a start that reads none (most do) never pays for it.
let manifestValidator: Validator | undefined;
const validateManifest = (data: unknown) => (manifestValidator ??= compileSchema(MANIFEST_SCHEMA))(data);

type Path = (string | number)[];
class ManifestError extends Error {
  constructor(
    readonly key: Path,
    readonly problem: string,
    readonly hint: string,
    readonly atKey = false,
  ) {
    super(problem);
  }
}
function fail(key: Path, problem: string, hint = "fix that key in the tool.json"): never {
  throw new ManifestError(key, problem, hint);
}

/** Every folder under `dir` holding a tool.json, in name order; other folders and files are ignored. */
export function loadManifests(dir: string, opts: ManifestOptions): Outcome<Manifest[]> {
  let names: string[];
  try {
    if (!statSync(dir).isDirectory())
      return refuse("authored.invalid_dir", `the authored-tools folder ${dir} (authored.dir) is not a folder`, {
        hint: "point authored.dir at a folder, or remove the file",
      });
    names = readdirSync(dir)
      .filter((n) => !n.startsWith("."))
      .sort();
  } catch (e) {
    return refuse(
      "authored.invalid_dir",
      `the authored-tools folder ${dir} (authored.dir) cannot be read: ${(e as Error).message}`,
      { hint: "fix its permissions, or point authored.dir elsewhere" },
    );
  }
  const out: Manifest[] = [];
  for (const n of names) {
    const folder = join(dir, n);
    const path = join(folder, MANIFEST_NAME);
    if (!existsSync(path) || !isFolder(folder)) continue;
    const m = loadManifest(path, folder, opts);
    if (!m.ok) return m;
    out.push(m.value);
  }
  return ok(out);
}

function isFolder(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function loadManifest(path: string, folder: string, opts: ManifestOptions): Outcome<Manifest> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    return refuse("authored.invalid_manifest", `${path}: cannot be read: ${(e as Error).message}`, {
      hint: "fix the file's permissions",
    });
  }
  const errors: ParseError[] = [];
  const { parseTree, printParseErrorCode } = jsonc();
  const tree = parseTree(text, errors, { allowTrailingComma: false, disallowComments: true, allowEmptyContent: false });
  if (errors.length > 0 || tree === undefined) {
    const e = errors[0];
    const at = position(text, e?.offset ?? 0);
    return refuse(
      "authored.invalid_manifest",
      `${path}:${at}: invalid JSON (${e ? printParseErrorCode(e.error) : "empty file"})`,
      {
        hint: "a manifest is strict JSON: no comments, no trailing commas",
      },
    );
  }
  try {
    return ok(checkManifest(treeValue(tree), path, folder, opts));
  } catch (e) {
    if (!(e instanceof ManifestError)) throw e;
    const node = nodeFor(tree, e.key, e.atKey);
    const key = e.key.length ? e.key.join(".") : "(top level)";
    return refuse("authored.invalid_manifest", `${path}:${position(text, node?.offset ?? 0)}: ${key}: ${e.problem}`, {
      hint: e.hint,
    });
  }
}

function checkManifest(data: unknown, path: string, folder: string, opts: ManifestOptions): Manifest {
  const checked = validateManifest(data);
  if (!checked.ok) {
    const first = withKeySuggestions(checked.issues.slice(0, 1), MANIFEST_SCHEMA, data)[0]!;
    const more =
      checked.issues.length > 1
        ? ` (and ${checked.issues.length - 1} more problem${checked.issues.length > 2 ? "s" : ""})`
        : "";
    const unknown = /must be removed/.test(first.message);
    const hint = unknown
      ? "a manifest holds name, description, input_schema, effect, approval, needs, command, timeout_secs"
      : "see the authored-tools card (skills/toolgate-authored-tools) for the manifest's shape";
    const near = first.did_you_mean === undefined ? "" : ` (did you mean ${JSON.stringify(first.did_you_mean)}?)`;
    throw new ManifestError(
      first.path,
      `${unknown ? `unknown key: must be removed${near}` : first.message}${more}`,
      hint,
      unknown,
    );
  }
  const m = checked.value as {
    name: string;
    description: string;
    input_schema: Record<string, unknown>;
    effect?: EffectClass;
    approval?: ApprovalPolicy;
    needs?: Partial<Record<PermKind, string[]>>;
    command?: string[];
    timeout_secs?: number;
  };
  // The catalog's rule, as for every source; a client with a shorter budget gets it mapped by serve (serve/names.ts).
  if (!NAME_RULE.test(m.name)) fail(["name"], `${JSON.stringify(m.name)} is not ${NAME_RULE_TEXT}`, "rename the tool");
  checkInputSchema(m.input_schema);
  for (const kind of NEED_KINDS) {
    (m.needs?.[kind] ?? []).forEach((v, i) => {
      const problem = v.includes("\0") ? "contains a NUL character" : (opts.checkNeed?.(kind, v) ?? null);
      if (problem) fail(["needs", kind, i], `${JSON.stringify(v)} ${problem}`);
    });
  }
  const { argv, program } = resolveCommand(m.command, folder, opts);
  const identity = authoredIdentity(data, argv, program, opts.workspace);
  return {
    path,
    folder,
    identity,
    digest: sha256Hex(canonicalJson(identity)),
    name: m.name,
    description: m.description,
    inputSchema: m.input_schema,
    effect: m.effect,
    approval: m.approval ?? "required",
    needs: m.needs ?? {},
    argv,
    program,
    timeoutSecs: m.timeout_secs ?? DEFAULT_TIMEOUT_SECS,
  };
}

/**
 * The runtime validates an authored tool's arguments with the complete validator (schema/full.ts);
 * a schema it cannot check is refused here. The small subset the fast check knows is accepted
 * without loading that validator, so a boot with plain schemas never pays for it.
 */
function checkInputSchema(schema: Record<string, unknown>): void {
  if (schema.type !== "object")
    fail(["input_schema", "type"], `must be "object" (the arguments are one JSON object)`, 'set "type": "object"');
  try {
    compileSchema(schema);
    return;
  } catch {
    // Past the subset: the complete validator decides.
  }
  try {
    compileFull(schema);
  } catch (e) {
    fail(
      ["input_schema", ...whereInSchema(schema, e)],
      `the runtime validator cannot check this schema: ${(e as Error).message}`,
      'write a JSON Schema (draft 2020-12, or draft-07 with "$schema") whose every $ref points inside it',
    );
  }
}

/**
 * argv[0] is a path relative to the tool's folder (`./run`), an absolute path, or a bare name on the
 * launcher's PATH; later arguments starting with `./` or `../` are folder-relative too.
 */
function resolveCommand(
  command: readonly string[] | undefined,
  folder: string,
  opts: ManifestOptions,
): { argv: string[]; program: string } {
  const argv = [...(command ?? DEFAULT_COMMAND)];
  const key: Path = command ? ["command", 0] : ["command"];
  const head = argv[0]!;
  const shown = command ? JSON.stringify(head) : `the default ${DEFAULT_COMMAND[0]} (no "command" given)`;
  let program: string | null;
  if (head.includes("/")) {
    const abs = resolve(folder, head);
    program = resolveReal(abs, folder);
    let st: Stats;
    try {
      st = statSync(abs);
    } catch {
      return fail(
        key,
        `${shown} does not exist (looked for ${abs})`,
        'add the executable to the tool\'s folder, or set "command"',
      );
    }
    if (!st.isFile()) fail(key, `${shown} is not a regular file (${abs})`);
    try {
      accessSync(abs, constants.X_OK);
    } catch {
      fail(key, `${shown} is not executable (${abs})`, `chmod +x ${abs}`);
    }
  } else {
    program = which(head, opts.pathEnv, folder);
    if (program === null)
      fail(
        key,
        `${shown} is not an executable on the launcher's PATH (${opts.pathEnv})`,
        "give a path relative to the tool's folder, or an absolute path",
      );
  }
  if (program === null) return fail(key, `${shown} cannot be resolved (a symlink loop)`);
  const local = (a: string, i: number) =>
    (i === 0 ? a.includes("/") : a === "." || a === ".." || a.startsWith("./") || a.startsWith("../"))
      ? spawnPath(resolve(folder, a), opts.workspace)
      : a;
  return { argv: argv.map(local), program };
}

/** Workspace-relative when the file sits inside the workspace (the child's cwd), else absolute. */
function spawnPath(abs: string, workspace: string): string {
  const rel = relative(workspace, abs);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return abs;
  return rel.includes("/") ? rel : `./${rel}`;
}

function treeValue(n: Node, path: Path = []): unknown {
  if (n.type === "array") return (n.children ?? []).map((c, i) => treeValue(c, [...path, i]));
  if (n.type !== "object") return n.value;
  const o: Record<string, unknown> = {};
  for (const p of n.children ?? []) {
    const [k, v] = p.children ?? [];
    if (!k || !v) continue;
    const key = k.value as string;
    if (Object.hasOwn(o, key)) throw new ManifestError([...path, key], "duplicate key", "keep one of them", true);
    Object.defineProperty(o, key, {
      value: treeValue(v, [...path, key]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return o;
}

/** The value's node (the property's, for a key that should go); the nearest existing parent otherwise. */
function nodeFor(tree: Node, path: Path, atKey: boolean): Node | undefined {
  for (let i = path.length; i >= 0; i--) {
    const n = jsonc().findNodeAtLocation(tree, path.slice(0, i));
    if (n) return atKey && i === path.length && n.parent?.type === "property" ? n.parent : n;
  }
  return undefined;
}

function position(text: string, offset: number): string {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++, (start = i + 1);
  return `${line}:${offset - start + 1}`;
}
