// A strict command-line scanner: every flag is known, unknown ones are usage errors (exit 2).
// citty draws the command tree and the help; this reads the flags, because Deno-style
// `--allow-read[=LIST]` and repeated `--arg k=v` need more than a boolean-or-string parser.
import { usageError } from "../result/result.ts";
import { isFlagError, parsePermissionFlag, PERMISSION_FLAG_NAMES, type PermissionFlag } from "../permission/flags.ts";

export type FlagKind = "bool" | "string" | "multi";
export interface FlagSpec {
  readonly kind: FlagKind;
  readonly alias?: string;
}

export const GLOBAL_FLAGS: Record<string, FlagSpec> = {
  config: { kind: "string" },
  workspace: { kind: "string" },
  scratch: { kind: "string" },
  json: { kind: "bool" },
  quiet: { kind: "bool", alias: "q" },
  verbose: { kind: "bool", alias: "v" },
  "no-prompt": { kind: "bool" },
  "no-session": { kind: "bool" },
  approve: { kind: "multi" },
  lane: { kind: "string" },
  "allow-local-paths": { kind: "multi" },
  resolve: { kind: "multi" },
  "require-rails": { kind: "bool" },
  help: { kind: "bool", alias: "h" },
};

export interface Scanned {
  readonly flags: Record<string, string | boolean | string[]>;
  readonly positionals: string[];
  readonly permissions: PermissionFlag[];
}

export function scanFlags(argv: readonly string[], specs: Record<string, FlagSpec>): Scanned {
  const all = { ...GLOBAL_FLAGS, ...specs };
  const byAlias = new Map(Object.entries(all).flatMap(([name, s]) => (s.alias ? [[s.alias, name] as const] : [])));
  const flags: Scanned["flags"] = {};
  const positionals: string[] = [];
  const permissions: PermissionFlag[] = [];
  for (let i = 0; i < argv.length; i++) {
    const tok = argv[i]!;
    if (tok === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (tok === "-" || !tok.startsWith("-")) {
      positionals.push(tok);
      continue;
    }
    const perm = parsePermissionFlag(tok);
    if (perm) {
      if (isFlagError(perm))
        throw usageError(`${tok}: ${perm.message}`, "give a comma-separated list after '=', or no '=' to grant all");
      permissions.push(perm);
      continue;
    }
    const eq = tok.indexOf("=");
    const rawName = tok.startsWith("--")
      ? tok.slice(2, eq > 0 ? eq : undefined)
      : tok.slice(1, eq > 0 ? eq : undefined);
    const name = tok.startsWith("--") ? rawName : byAlias.get(rawName);
    const spec = name === undefined ? undefined : all[name];
    if (name === undefined || spec === undefined) {
      // The nearest flag (this command's and the global ones, the permission flags among them; `-jsn` too),
      // named by the entry point; a one-letter alias is too short to tell which was meant.
      const among = rawName.length < 2 ? [] : [...Object.keys(all), ...PERMISSION_FLAG_NAMES];
      throw usageError(
        `unknown flag ${tok.slice(0, eq > 0 ? eq : undefined)}`,
        "run with --help to see the flags this command takes",
        { name: rawName, among, show: (n) => `--${n}` },
      );
    }
    const inline = eq > 0 ? tok.slice(eq + 1) : undefined;
    if (spec.kind === "bool") {
      if (inline !== undefined) throw usageError(`--${name} takes no value (got "${inline}")`);
      flags[name] = true;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      value = argv[++i];
      if (value === undefined) throw usageError(`--${name} needs a value`, `write --${name} VALUE or --${name}=VALUE`);
    }
    if (spec.kind === "string") {
      if (flags[name] !== undefined) throw usageError(`--${name} was given twice`);
      flags[name] = value;
    } else {
      ((flags[name] ??= []) as string[]).push(value);
    }
  }
  return { flags, positionals, permissions };
}

export const str = (s: Scanned, name: string): string | undefined => s.flags[name] as string | undefined;
export const bool = (s: Scanned, name: string): boolean => s.flags[name] === true;
export const multi = (s: Scanned, name: string): string[] => (s.flags[name] as string[] | undefined) ?? [];
