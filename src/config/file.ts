// Finding, parsing (JSON with comments) and validating toolgate.json. Every error names
// the file, the line and column or key path, what was expected and how to fix it.
import { sha256Hex } from "../result/sha256.ts";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Node } from "jsonc-parser";
import { jsoncParser, lineStarts, nodeAt, parseJsonc, position, refuseDuplicateKey, treeValue } from "./jsonc-text.ts";
import { configSchema } from "../generated/schemas.ts";
import { bootError } from "../result/result.ts";
import { validatorOf } from "../schema/generated-check.ts";
import type { Issue, Validator } from "../schema/validate.ts";
import { explainWithArktype } from "../schema/explain.ts";
import { withKeySuggestions } from "../schema/keys.ts";
import { clientFileNote, isClientFile, readClientFile } from "./client-file.ts";
import type { Imported } from "./import.ts";
import { findInertKey } from "./inert.ts";
import { offsetAt } from "./locate.ts";
import { BUILTIN_PROFILE_NAMES, redefinedProfile } from "./profiles.ts";
import { configType, type ConfigData } from "./schema.ts";

export const CONFIG_NAME = "toolgate.json";

export interface ConfigFile {
  readonly path: string;
  readonly via: "flag" | "env" | "search";
  readonly data: ConfigData;
  /** sha256 (hex) of the file's bytes as read: what `toolgate trust` records and TOOLGATE_TRUST names. */
  readonly digest: string;
  /** Set when the file is another client's (read as it is): what was taken and left out. */
  readonly client?: { readonly imported: Imported; readonly note: string };
  /** 1-based line of the value at a key path ("a.b.c"), for origins. */
  lineOf(path: readonly (string | number)[]): number | undefined;
}

/** Where toolgate.lock lies: beside toolgate.json, else (no file, another client's file) in the workspace. */
export function configFolder(file: ConfigFile | null, workspace: string): string {
  return file && !file.client ? dirname(file.path) : workspace;
}

/**
 * --config, then $TOOLGATE_CONFIG (both relative to cwd), then the nearest toolgate.json from
 * `from` up to the repository root: the --workspace folder when one is named, else cwd.
 */
export function locateConfig(
  flag: string | undefined,
  env: string | undefined,
  cwd: string,
  from = cwd,
): { path: string; via: ConfigFile["via"] } | null {
  if (flag !== undefined) return { path: mustExist(resolve(cwd, flag), "--config"), via: "flag" };
  if (env !== undefined && env !== "") return { path: mustExist(resolve(cwd, env), "$TOOLGATE_CONFIG"), via: "env" };
  const top = repositoryRoot(from);
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, CONFIG_NAME);
    // A folder of that name is no config (a product sandbox holds a missing one with a folder while it runs).
    if (isFileAt(candidate)) return { path: candidate, via: "search" };
    if (top === null || dir === top || dirname(dir) === dir) return null;
  }
}

function isFileAt(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function mustExist(path: string, via: string): string {
  let isFile = false;
  try {
    isFile = statSync(path).isFile();
  } catch {
    throw bootError(
      `config file ${path} (from ${via}) does not exist`,
      `create it, or drop ${via} to use the embedded default`,
    );
  }
  if (!isFile) throw bootError(`config file ${path} (from ${via}) is not a regular file`);
  return path;
}

/** The nearest folder up from cwd holding .git; null outside a repository (then only cwd is searched). */
export function repositoryRoot(cwd: string): string | null {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, ".git"))) return dir;
    if (dirname(dir) === dir) return null;
  }
}

/** Top-level keys that would configure telemetry (refused by name: only the environment sets it). */
const OTEL_KEY = /^(telemetry|otel|opentelemetry|tracing|otel_.*)$/i;

/**
 * The config's check (generated at build time: scripts/gen-schemas.ts), loaded with the first file read: a start
 * without a config file never loads it.
 */
let checkConfig: Validator | undefined;
const configCheck = async () => (checkConfig ??= validatorOf((await import("../generated/config-check.js")).validate));

export async function readConfig(path: string, via: ConfigFile["via"]): Promise<ConfigFile> {
  try {
    return await readConfigFile(path, via);
  } catch (e) {
    // Every reader of the text (JSON.parse, jsonc-parser, the checks) recurses per level: a file
    // nested deeper than the stack is bad input, refused as such, not an internal error.
    if (!(e instanceof RangeError)) throw e;
    throw bootError(
      `${path}: its values are nested too deeply to be read (${e.message})`,
      "a config needs a few levels of nesting; check that the file is the config you meant",
    );
  }
}

async function readConfigFile(path: string, via: ConfigFile["via"]): Promise<ConfigFile> {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw bootError(`config file ${path} cannot be read: ${(e as Error).message}`);
  }
  // The digest is of the very bytes parsed here: what is trusted is what is read.
  const digest = sha256Hex(bytes);
  const text = bytes.toString("utf8");
  // A file the user named may be another client's (never one found by search: a checkout's .mcp.json
  // is not toolgate's config unless the user says so).
  if (via !== "search" && isClientFile(path, () => tryJson(text))) return clientConfig(path, via, text, digest);
  // Fast path: plain JSON parses natively, and jsonc-parser (a few ms to load) is needed only for
  // comments, trailing commas, error positions and the line numbers `toolgate config` shows.
  let data: unknown;
  let tree: Node | undefined;
  let plain = true;
  try {
    data = JSON.parse(text);
  } catch {
    plain = false;
    tree = parseJsonc(path, text);
    data = treeValue(tree);
  }
  const withTree = (): Node => (tree ??= parseJsonc(path, text));
  refuseDuplicateKey(path, text, tree);
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw bootError(
      `${path}:1:1: the config must be a JSON object`,
      'start from {} and add sections such as "permissions"',
    );
  }
  // Telemetry is the user's environment only: a file (a repository's) naming an endpoint could send the journal
  // elsewhere.
  const otel = Object.keys(data).find((k) => OTEL_KEY.test(k));
  if (otel !== undefined) {
    const node = nodeAt(withTree(), [otel], true);
    const at = node ? position(lineStarts(text), node.offset) : { line: 1, column: 1 };
    throw bootError(
      `${path}:${at.line}:${at.column}: ${otel}: a config file cannot set where spans go: telemetry is ` +
        `configured only by the OTEL_* variables of your own environment (OTEL_EXPORTER_OTLP_ENDPOINT, …)`,
      `remove "${otel}" from the config, and set OTEL_EXPORTER_OTLP_ENDPOINT where you run toolgate ` +
        `(docs/telemetry.md)`,
    );
  }
  const checked = (await configCheck())(data);
  if (!checked.ok) {
    const issues = withKeySuggestions(await explainWithArktype(configType, data, checked.issues), configSchema, data);
    // Every problem, each with its place, in the order they stand in the file: one edit fixes them all.
    const starts = lineStarts(text);
    const located = issues
      .map((issue) => {
        const node = nodeAt(withTree(), issue.path, /must be removed/.test(issue.message));
        const at = node ? position(starts, node.offset) : { line: 1, column: 1 };
        const key = issue.path.length ? issue.path.join(".") : "(top level)";
        return { issue, at, line: `${path}:${at.line}:${at.column}: ${key}: ${issueText(issue)}` };
      })
      .sort((a, b) => a.at.line - b.at.line || a.at.column - b.at.column);
    const hints = [...new Set(located.map((l) => hintFor(l.issue)))].join("; ");
    if (located.length === 1) throw bootError(located[0]!.line, hints);
    throw bootError(`${path}: ${located.length} problems:\n${located.map((l) => l.line).join("\n")}`, hints);
  }
  // What the check accepts has the schema's type: the checked JSON Schema is generated from it.
  const value = checked.value as ConfigData;
  const inert = findInertKey(value);
  if (inert) {
    const node = nodeAt(withTree(), inert.path, true);
    const at = node ? position(lineStarts(text), node.offset) : { line: 1, column: 1 };
    throw bootError(
      `${path}:${at.line}:${at.column}: ${inert.path.join(".")}: ${inert.missing}, so the key would do nothing`,
      `remove "${inert.path.join(".")}" from the config (it is refused until its feature exists)`,
    );
  }
  const redefined = redefinedProfile(value);
  if (redefined) {
    const node = nodeAt(withTree(), redefined, true);
    const at = node ? position(lineStarts(text), node.offset) : { line: 1, column: 1 };
    throw bootError(
      `${path}:${at.line}:${at.column}: ${redefined.join(".")}: "${redefined[1]}" is a built-in profile ` +
        `(${BUILTIN_PROFILE_NAMES.join(", ")}) and cannot be redefined`,
      `rename the profile (e.g. "my-${redefined[1]}") and pass that name to --profile`,
    );
  }
  let lines: number[] | undefined;
  return {
    path,
    via,
    digest,
    data: value,
    lineOf: (p) => {
      // Plain JSON (most files) is scanned for the one value; jsonc's tree only for a file that needed it.
      const offset = plain ? offsetAt(text, p) : jsoncParser().findNodeAtLocation(withTree(), [...p])?.offset;
      return offset === undefined ? undefined : position((lines ??= lineStarts(text)), offset).line;
    },
  };
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const tree = parseJsonc("", text, true);
    return tree ? treeValue(tree) : null;
  }
}

/** Another client's file as config data: parse errors and shape problems name the file; no line numbers. */
async function clientConfig(path: string, via: ConfigFile["via"], text: string, digest: string): Promise<ConfigFile> {
  let tree: Node | undefined;
  const r = readClientFile(path, text, (t) => {
    try {
      return JSON.parse(t);
    } catch {
      tree = parseJsonc(path, t);
      return treeValue(tree);
    }
  });
  if (!r.ok)
    throw bootError(
      `${path}: read as another client's MCP config: ${r.problem}`,
      "name a toolgate.json with --config, or fix that file",
    );
  // As in a toolgate.json: the other client may run the copy toolgate would not. (TOML refuses a key twice itself.)
  if (!/\.toml$/i.test(path)) refuseDuplicateKey(path, text, tree);
  const checked = (await configCheck())(r.data);
  if (!checked.ok) {
    const issues = withKeySuggestions(
      await explainWithArktype(configType, r.data, checked.issues),
      configSchema,
      r.data,
    );
    const lines = issues.map((i) => `${path}: ${i.path.join(".")}: ${issueText(i)}`);
    throw bootError(
      lines.length === 1 ? lines[0]! : `${path}: ${lines.length} problems:\n${lines.join("\n")}`,
      `\`toolgate config import ${path}\` writes a toolgate.json you can edit`,
    );
  }
  return {
    path,
    via,
    digest,
    data: checked.value as ConfigData,
    client: { imported: r.imported, note: clientFileNote(path, r.imported) },
    lineOf: () => undefined,
  };
}

/** An issue's words, with an unknown key's nearest declared one when it has one. */
const issueText = (issue: Issue) =>
  `${issue.message}${issue.did_you_mean === undefined ? "" : ` (did you mean ${JSON.stringify(issue.did_you_mean)}?)`}`;

function hintFor(issue: Issue): string {
  if (/must be removed|unknown key/i.test(issue.message)) {
    return "remove that key or check its spelling; `toolgate config schema` prints every key the file may hold";
  }
  return "`toolgate config schema` prints the expected shape of every key";
}
