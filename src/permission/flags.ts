// Permission flags (`--allow-read=a,b`, `--deny-net`, `-A`) to grants, and the merge of
// config grants with flag grants. Malformed flags come back as values for the CLI to report.
import { parseNet } from "./net.ts";
import { escapeControl } from "../result/escape.ts";
import { PERM_KINDS, type GrantValue, type PermKind, type PermissionGrants } from "./types.ts";

export type FlagEffect = "allow" | "deny";

export interface PermissionFlag {
  effect: FlagEffect;
  /** "all" comes only from `-A` / `--allow-all`: every kind allowed. */
  kind: PermKind | "all";
  value: GrantValue;
}

export interface PermissionFlagError {
  error: "permission.flag_invalid";
  flag: string;
  message: string;
}

export function isFlagError(x: PermissionFlag | PermissionFlagError | null): x is PermissionFlagError {
  return x !== null && "error" in x;
}

const FLAG = /^--(allow|deny)-(read|write|run|net|env)(?:=(.*))?$/s;

/** Every permission flag's long name (`allow-read`, ..., `allow-all`), for the nearest name to an unknown flag. */
export const PERMISSION_FLAG_NAMES: readonly string[] = [
  ...PERM_KINDS.flatMap((k) => [`allow-${k}`, `deny-${k}`]),
  "allow-all",
];

function invalid(flag: string, message: string): PermissionFlagError {
  return { error: "permission.flag_invalid", flag, message };
}

function checkItem(kind: PermKind, item: string): string | null {
  if (item === "") return "has an empty item (a stray comma, or nothing after '=')";
  if (item.includes("\0")) return "contains a NUL byte";
  if (kind === "net" && parseNet(item) === null)
    return `item "${escapeControl(item)}" is not host or host:port (IPv6 goes in brackets: [::1]:8080)`;
  if (kind === "env" && item.includes("=")) return `item "${escapeControl(item)}" is not a variable name`;
  return null;
}

/**
 * Parses one command-line token. null: not a permission flag (the caller handles it).
 * Values are split on commas; a value containing a comma cannot be written as a flag.
 */
export function parsePermissionFlag(token: string): PermissionFlag | PermissionFlagError | null {
  if (token === "-A" || token === "--allow-all") return { effect: "allow", kind: "all", value: true };
  if (token.startsWith("-A=") || token.startsWith("--allow-all="))
    return invalid(escapeControl(token), "takes no value");
  const m = FLAG.exec(token);
  if (m === null) return null;
  const effect = m[1] as FlagEffect;
  const kind = m[2] as PermKind;
  if (m[3] === undefined) return { effect, kind, value: true };
  const items = m[3].split(",");
  for (const item of items) {
    const problem = checkItem(kind, item);
    if (problem !== null) return invalid(escapeControl(token), `--${effect}-${kind} ${problem}`);
  }
  return { effect, kind, value: [...new Set(items)] };
}

function union(a: GrantValue | undefined, b: GrantValue | undefined): GrantValue | undefined {
  if (a === undefined) return b === true ? true : b && [...b];
  if (b === undefined) return a === true ? true : [...a];
  if (a === true || b === true) return true;
  return [...new Set([...a, ...b])];
}

/** Grants from parsed flags (flags never remove anything; a deny only ever adds to denials). */
export function grantsFromFlags(flags: readonly PermissionFlag[], cwd?: string): PermissionGrants {
  const grants: PermissionGrants = { allow: {}, deny: {} };
  const named: NonNullable<PermissionGrants["named"]> = {};
  for (const given of flags) {
    const flag = cwd === undefined ? given : fromFolder(given, cwd);
    const kinds = flag.kind === "all" ? PERM_KINDS : [flag.kind];
    const side = grants[flag.effect];
    for (const kind of kinds) {
      side[kind] = union(side[kind], flag.value);
      if (flag.effect === "allow" && flag.value !== true)
        named[kind] = [...new Set([...(named[kind] ?? []), ...flag.value])];
    }
  }
  return Object.keys(named).length > 0 ? { ...grants, named } : grants;
}

/**
 * A flag's relative paths resolve against the folder the command runs in, as a shell user (and
 * Deno) expects: `--allow-read=notes` from `ws/sub` is `ws/sub/notes`. A config's relative paths
 * resolve against the workspace instead (config/resolve.ts).
 */
function fromFolder(flag: PermissionFlag, cwd: string): PermissionFlag {
  if (flag.value === true || (flag.kind !== "read" && flag.kind !== "write" && flag.kind !== "run")) return flag;
  const at = (v: string) =>
    // walked as real paths later, never normalised here
    v.startsWith("/") || (flag.kind === "run" && !v.includes("/")) ? v : `${cwd.replace(/\/$/, "")}/${v}`;
  return { ...flag, value: flag.value.map(at) };
}

/** Each allow flag's value for `kind` as given (`-A` counts), before the union drops a list beside `true`. */
export function allowedByEach(flags: readonly PermissionFlag[], kind: PermKind): GrantValue[] {
  return flags.filter((f) => f.effect === "allow" && (f.kind === kind || f.kind === "all")).map((f) => f.value);
}

/**
 * Combines grant sources (config, then flags): allows add up, denies add up, and since deny
 * wins at decision time a flag cannot lift a config deny. Relative config paths must already
 * be absolute (against the config's folder) before they get here.
 */
export function mergeGrants(...sources: readonly PermissionGrants[]): PermissionGrants {
  const merged: PermissionGrants = { allow: {}, deny: {} };
  const named: NonNullable<PermissionGrants["named"]> = {};
  for (const source of sources) {
    for (const kind of PERM_KINDS) {
      const allow = union(merged.allow[kind], source.allow[kind]);
      const deny = union(merged.deny[kind], source.deny[kind]);
      if (allow !== undefined) merged.allow[kind] = allow;
      if (deny !== undefined) merged.deny[kind] = deny;
      // What a source listed by name stays named after a whole-kind grant absorbs the list.
      const listed = [
        ...(source.named?.[kind] ?? []),
        ...(Array.isArray(source.allow[kind]) ? (source.allow[kind] as string[]) : []),
      ];
      if (listed.length > 0) named[kind] = [...new Set([...(named[kind] ?? []), ...listed])];
    }
  }
  return Object.keys(named).length > 0 ? { ...merged, named } : merged;
}
