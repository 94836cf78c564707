// The effective configuration: defaults < file < environment < flags, each leaf value
// remembering where it came from (`toolgate config` shows it). Pure but for the file it is given.
import { isAbsolute, dirname, resolve } from "node:path";
import { bootError } from "../result/result.ts";
import { isCI } from "./ci.ts";
import type { ConfigFile } from "./file.ts";
import type { ConfigData } from "./schema.ts";

export const DEFAULT_LAS_ONLY = "weles,skarbiec,tama,stado,lem,echo,most,probierz,byk,brama,warsztat,finance".split(
  ",",
);

type Section<K extends keyof ConfigData> = NonNullable<ConfigData[K]>;

/** What the defaults always set (and the environment's rail endpoints): present in every effective config. */
interface Defaulted {
  workspace: string;
  state: string;
  scratch: string;
  sandbox: Section<"sandbox">;
  permissions: Section<"permissions"> & { prompt: boolean };
  las: Section<"las"> & {
    enabled: boolean;
    command: string;
    entrypoint: string;
    only: string[];
    required_surfaces: string[];
    timeout_secs: number;
    shutdown_grace_secs: number;
  };
  rails: Section<"rails"> & {
    require: boolean;
    bank_url?: string;
    bank_token?: string;
    research_url?: string;
    research_token?: string;
  };
  gates: Section<"gates"> & { directory: string; pattern: string; timeout_secs: number; annotations: boolean };
  bash: Section<"bash"> & { timeout_secs: number; max_timeout_secs: number };
  authored: { dir: string };
  tasks: { yield_cap_secs: number };
  delegation: Section<"delegation"> & { timeout_secs: number; max_output_chars: number };
  skills: string[];
}

/** The effective config's values: the file's shape, every defaulted key present, paths absolute. */
export type ConfigValues = Omit<ConfigData, keyof Defaulted> & Defaulted;

/**
 * The defaults, as nested values; each leaf is one origin "default". Maps (approval, profiles, mcpServers) have none.
 */
export const DEFAULTS = {
  workspace: ".",
  state: ".toolgate",
  scratch: ".toolgate/scratch",
  sandbox: "off",
  permissions: { prompt: true },
  las: {
    enabled: false,
    command: "node",
    entrypoint: "../las/src/mcp.mjs",
    only: DEFAULT_LAS_ONLY,
    required_surfaces: ["skarbiec", "finance"],
    timeout_secs: 120,
    shutdown_grace_secs: 10,
  },
  rails: { require: false },
  gates: { directory: ".", pattern: "script/check-*.sh", timeout_secs: 600, annotations: false },
  bash: { timeout_secs: 120, max_timeout_secs: 600 },
  authored: { dir: "tools" },
  tasks: { yield_cap_secs: 240 },
  delegation: { timeout_secs: 600, max_output_chars: 12000 },
  skills: ["skills"],
} satisfies Defaulted;

const MAP_SECTIONS = new Set(["approval", "profiles", "mcpServers"]);

type Parse = (raw: string, name: string) => unknown;
const asList: Parse = (raw) =>
  raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
const asString: Parse = (raw) => raw;
const asTrue: Parse = (raw) => raw === "true";
const asRedacted: Parse = () => "[REDACTED]";
const asSecs: Parse = (raw, name) => {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n) || n < 0)
    throw bootError(
      `environment variable ${name}=${JSON.stringify(raw)} is not a number of seconds`,
      `set ${name} to a non-negative number, or unset it`,
    );
  return n;
};

/** The environment names toolgate reads and the leaf each one sets. */
export const ENV_KEYS: readonly [string, string, Parse][] = [
  ["LAS_COMMAND", "las.command", asString],
  ["LAS_MCP_ENTRYPOINT", "las.entrypoint", asString],
  ["LAS_ONLY", "las.only", asList],
  ["LAS_SKIP", "las.skip", asList],
  ["SINGULARITY_REQUIRED_SURFACES", "las.required_surfaces", asList],
  ["SINGULARITY_MCP_TIMEOUT_SECS", "las.timeout_secs", asSecs],
  ["SINGULARITY_SHUTDOWN_GRACE_SECS", "las.shutdown_grace_secs", asSecs],
  ["LAS_RELEASE_MANIFEST_FILE", "las.release_manifest_file", asString],
  ["LAS_RELEASE_MANIFEST_SIGNATURE_FILE", "las.release_manifest_signature_file", asString],
  ["LAS_RELEASE_TRUST_STORE_FILE", "las.release_trust_store_file", asString],
  ["LAS_RELEASE_WATERMARK_FILE", "las.release_watermark_file", asString],
  ["MOST_SERVICE_TOKEN_FILE", "most.service_token_file", asString],
  ["MOST_SERVICE_URL", "most.url", asString],
  // The rails' endpoints; their credentials are shown as set, never by value.
  ["RAILS_BANK_URL", "rails.bank_url", asString],
  ["RAILS_BANK_TOKEN", "rails.bank_token", asRedacted],
  ["RAILS_RESEARCH_URL", "rails.research_url", asString],
  ["RAILS_RESEARCH_TOKEN", "rails.research_token", asRedacted],
  // GitHub Actions sets it: dev_check then writes ::error:: annotations for failed gates (stderr).
  ["GITHUB_ACTIONS", "gates.annotations", asTrue],
];

export interface Leaf {
  readonly value: unknown;
  readonly origin: string;
}

export interface Effective {
  /** The merged config as a nested object (paths already made absolute). */
  readonly values: ConfigValues;
  /** Every leaf, sorted by key, with its origin: "default", "file:PATH:LINE", "env:NAME", "flag:--NAME". */
  readonly leaves: ReadonlyMap<string, Leaf>;
}

export interface ResolveInput {
  readonly cwd: string;
  readonly file: ConfigFile | null;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Leaf path → [value, flag name]. */
  readonly flags: Readonly<Record<string, readonly [unknown, string]>>;
}

function flatten(obj: object, prefix: string[], out: [string[], unknown][]): void {
  for (const [k, v] of Object.entries(obj)) {
    const path = [...prefix, k];
    const isMapEntry = prefix.length === 1 && MAP_SECTIONS.has(prefix[0]!);
    if (v !== null && typeof v === "object" && !Array.isArray(v) && !isMapEntry) flatten(v, path, out);
    else out.push([path, v]);
  }
}

export function resolveConfig(input: ResolveInput): Effective {
  const leaves = new Map<string, Leaf>();
  const defaults: [string[], unknown][] = [];
  flatten(DEFAULTS, [], defaults);
  for (const [path, v] of defaults) leaves.set(path.join("."), { value: v, origin: "default" });
  if (input.file) {
    const f = input.file;
    const pairs: [string[], unknown][] = [];
    flatten(f.data, [], pairs);
    for (const [path, v] of pairs) {
      // The line is found only when someone reads the origin (`toolgate config`, an error).
      leaves.set(path.join("."), {
        value: v,
        get origin() {
          const line = f.lineOf(path);
          return line ? `file:${f.path}:${line}` : `file:${f.path}`;
        },
      });
    }
  }
  for (const [name, key, parse] of ENV_KEYS) {
    const raw = input.env[name];
    if (raw === undefined) continue;
    leaves.set(key, { value: parse(raw, name), origin: `env:${name}` });
    if (key === "las.command" || key === "las.entrypoint")
      leaves.set("las.enabled", { value: true, origin: `env:${name}` });
  }
  if (isCI(input.env)) leaves.set("permissions.prompt", { value: false, origin: "env:CI" });
  for (const [key, [value, flag]] of Object.entries(input.flags)) {
    if (value !== undefined) leaves.set(key, { value, origin: `flag:${flag}` });
  }
  // Relative paths: workspace against the config file's folder (or cwd), the rest against the workspace.
  const ws = leaves.get("workspace")!;
  const wsFromFlag = input.flags.workspace?.[0] !== undefined;
  const wsFromFile = !wsFromFlag && input.file !== null && input.file.data.workspace !== undefined;
  const wsBase = wsFromFile ? dirname(input.file!.path) : input.cwd;
  // Only a toolgate.json found from where toolgate runs makes its folder the workspace: one chosen
  // by name (--config, $TOOLGATE_CONFIG, another client's file) leaves the workspace where it runs.
  if (input.file?.via === "search" && !wsFromFlag && !wsFromFile) {
    leaves.set("workspace", { value: dirname(input.file.path), origin: `file:${input.file.path}` });
  } else leaves.set("workspace", moved(ws, absolute(wsBase, String(ws.value))));
  const root = String(leaves.get("workspace")!.value);
  for (const key of ["state", "scratch", "authored.dir"]) {
    const l = leaves.get(key)!;
    leaves.set(key, moved(l, absolute(root, String(l.value))));
  }
  const sorted = new Map([...leaves.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { values: unflatten(sorted), leaves: sorted };
}

const absolute = (base: string, p: string) => (isAbsolute(p) ? p : resolve(base, p));

/** The same leaf with a new value; its origin stays lazy (reading it may look up a line). */
const moved = (l: Leaf, value: unknown): Leaf => ({
  value,
  get origin() {
    return l.origin;
  },
});

/**
 * The leaves as one nested object. Its type is ConfigValues: the file's leaves passed the schema,
 * the defaults are typed above, the environment's are parsed to their key's type and the flags
 * set only paths (workspace, state, scratch).
 */
function unflatten(leaves: ReadonlyMap<string, Leaf>): ConfigValues {
  const out = {} as ConfigValues & Record<string, unknown>;
  for (const [key, { value }] of leaves) {
    const parts = splitKey(key);
    let o: Record<string, unknown> = out;
    for (const p of parts.slice(0, -1)) o = (o[p] ??= {}) as Record<string, unknown>;
    o[parts[parts.length - 1]!] = value;
  }
  return out;
}

/** Map sections keep their entry name whole, even when it holds a dot. */
function splitKey(key: string): string[] {
  const dot = key.indexOf(".");
  if (dot > 0 && MAP_SECTIONS.has(key.slice(0, dot))) return [key.slice(0, dot), key.slice(dot + 1)];
  return key.split(".");
}
