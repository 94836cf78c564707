// The effective configuration: defaults < file < environment < flags, each leaf value
// remembering where it came from (`toolgate config` shows it). Pure but for the file it is given.
import { isAbsolute, dirname, resolve } from "node:path";
import { bootError } from "../result/result.ts";
import { isCI } from "./ci.ts";
import type { ConfigFile } from "./file.ts";

export const DEFAULT_LAS_ONLY = "weles,skarbiec,tama,stado,lem,echo,most,probierz,byk,brama,warsztat,finance".split(
  ",",
);

/** Leaf path → default value. Maps (approval, profiles, mcpServers) have one leaf per entry. */
export const DEFAULTS: Readonly<Record<string, unknown>> = {
  workspace: ".",
  state: ".toolgate",
  scratch: ".toolgate/scratch",
  sandbox: "off",
  "permissions.prompt": true,
  "las.enabled": false,
  "las.command": "node",
  "las.entrypoint": "../las/src/mcp.mjs",
  "las.only": DEFAULT_LAS_ONLY,
  "las.required_surfaces": ["skarbiec", "finance"],
  "las.timeout_secs": 120,
  "las.shutdown_grace_secs": 10,
  "rails.require": false,
  "gates.directory": ".",
  "gates.pattern": "script/check-*.sh",
  "gates.timeout_secs": 600,
  "gates.annotations": false,
  "bash.timeout_secs": 120,
  "bash.max_timeout_secs": 600,
  "authored.dir": "tools",
  "tasks.yield_cap_secs": 240,
  "delegation.timeout_secs": 600,
  "delegation.max_output_chars": 12000,
  skills: ["skills"],
};

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
  readonly values: Record<string, any>;
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

function flatten(obj: Record<string, unknown>, prefix: string[], out: [string[], unknown][]): void {
  for (const [k, v] of Object.entries(obj)) {
    const path = [...prefix, k];
    const isMapEntry = prefix.length === 1 && MAP_SECTIONS.has(prefix[0]!);
    if (v !== null && typeof v === "object" && !Array.isArray(v) && !isMapEntry)
      flatten(v as Record<string, unknown>, path, out);
    else out.push([path, v]);
  }
}

export function resolveConfig(input: ResolveInput): Effective {
  const leaves = new Map<string, Leaf>();
  for (const [k, v] of Object.entries(DEFAULTS)) leaves.set(k, { value: v, origin: "default" });
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

function unflatten(leaves: ReadonlyMap<string, Leaf>): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [key, { value }] of leaves) {
    const parts = splitKey(key);
    let o = out;
    for (const p of parts.slice(0, -1)) o = o[p] ??= {};
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
