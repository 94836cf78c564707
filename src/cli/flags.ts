// Every flag is declared once, in citty's shape: a command's `args` (its default export), and
// GLOBAL_ARGS for the flags every command takes. The help (help.ts) and the completion scripts
// (completions.ts) are drawn from those declarations, and the entry point scans the command line
// with the same ones (scanFlags), strictly: an unknown flag is a usage error (exit 2), with the
// nearest known one named. What citty's own parser cannot do is an extension of the declaration:
// `repeat` collects a flag given many times (`--approve a --approve b`), and `permission` marks a
// Deno-style family (`--allow-read[=LIST]` stands for --allow-write/-run/-net/-env too, `--deny-read`
// for every --deny-*, `-A`) that src/permission/flags.ts reads, all its members at once.
import type { ArgDef } from "citty";
import { usageError } from "../result/result.ts";
import { isFlagError, parsePermissionFlag, PERMISSION_FLAG_NAMES, type PermissionFlag } from "../permission/flags.ts";

/** One argument or flag as citty declares it, with what the scanner adds. */
export type Arg = ArgDef & {
  /** The flag may be given again; its values are collected in order. */
  readonly repeat?: true;
  /** A permission flag, standing for its whole family (PERMISSION_FLAG_NAMES). */
  readonly permission?: true;
  /** A positional's words for the completion scripts: a list, the catalog's tool names, or the command names. */
  readonly complete?: readonly string[] | "tools" | "commands";
};
export type Args = Readonly<Record<string, Arg>>;

/** The flags every command takes (toolgate --help describes each). */
export const GLOBAL_ARGS = {
  config: {
    type: "string",
    description:
      "Config file, yours and so trusted; another client's MCP config (mcp.json, .mcp.json, " +
      "claude_desktop_config.json, settings.json, a Codex .toml, ...) is read for its servers only (default: " +
      "$TOOLGATE_CONFIG, else the nearest toolgate.json from --workspace or the current directory up to the " +
      "repository root, which may only narrow until `toolgate trust`); it chooses a config, never the workspace",
    valueHint: "FILE",
  },
  workspace: {
    type: "string",
    description:
      "Workspace root, where toolgate.json is looked for first (default: a trusted config's workspace key, " +
      "else the folder of the toolgate.json found, else the current directory; never a --config file's folder)",
    valueHint: "DIR",
  },
  scratch: {
    type: "string",
    description:
      "The scratch folder for this run, over the config's scratch key (default .toolgate/scratch): where " +
      "scratch_read reads and the sandbox lets tools write; yours, so it may lie outside the workspace, but it " +
      "may not be or hold the state folder",
    valueHint: "DIR",
  },
  json: { type: "boolean", description: "JSON output (the default when stdout is not a terminal)" },
  quiet: { type: "boolean", alias: "q", description: "No human messages on stderr" },
  verbose: { type: "boolean", alias: "v", description: "More human messages on stderr" },
  "allow-read": {
    type: "string",
    permission: true,
    description:
      "Grant reading these paths (all, without =LIST); also --allow-write, --allow-run, --allow-net (a " +
      "loopback or private address needs its exact HOST:PORT; localhost:PORT is loopback, resolved without " +
      "DNS), --allow-env; grants add up",
    valueHint: "LIST",
  },
  "deny-read": {
    type: "string",
    permission: true,
    description: "Refuse these paths, whatever else grants them; also --deny-write/-run/-net/-env",
    valueHint: "LIST",
  },
  "allow-all": { type: "boolean", alias: "A", permission: true, description: "Grant every permission" },
  approve: {
    type: "string",
    repeat: true,
    description: "Approve these tools for this run (repeatable; `all` approves every tool)",
    valueHint: "TOOL[,TOOL]",
  },
  "no-prompt": {
    type: "boolean",
    description:
      "Never prompt (also when CI is set, unless empty, false or 0): ungranted permissions and approvals are refused",
  },
  lane: {
    type: "string",
    description: "The lane whose plan and desk page a call uses (default: default)",
    valueHint: "NAME",
  },
  "allow-local-paths": {
    type: "string",
    repeat: true,
    description:
      "Let this MCP server's results through with absolute paths in them (the output boundary's local-path " +
      "rule off for it; journaled)",
    valueHint: "SERVER[,SERVER]",
  },
  "require-rails": {
    type: "boolean",
    description:
      "Fail the boot (exit 5) when a rail's endpoint or credential is missing: RAILS_BANK_URL and " +
      "RAILS_BANK_TOKEN (bank_search, bank_get, librarian), RAILS_RESEARCH_URL and " +
      "RAILS_RESEARCH_TOKEN (research)",
  },
  resolve: {
    type: "string",
    repeat: true,
    description:
      "Pin a name to addresses as curl does (repeatable); the URL policy checks them like DNS answers, and a " +
      "non-public one needs the exact --allow-net=HOST:PORT",
    valueHint: "HOST:PORT:ADDR[,ADDR]",
  },
  "no-session": {
    type: "boolean",
    description:
      "Run cold even when a session (toolgate session start) serves this workspace; also TOOLGATE_SESSION=off",
  },
  help: { type: "boolean", alias: "h", description: "Show the help (toolgate help COMMAND is COMMAND --help)" },
} as const satisfies Args;

/** What only toolgate itself takes, before any command. */
export const TOP_ARGS = {
  ...GLOBAL_ARGS,
  version: { type: "boolean", alias: "V", description: "Print the version" },
} as const satisfies Args;

export interface Scanned {
  readonly flags: Record<string, string | boolean | string[]>;
  readonly positionals: string[];
  readonly permissions: PermissionFlag[];
}

/** The flags of `args` (and the global ones), by name and by alias: every name the scanner takes. */
export function flagTable(args: Args): Map<string, readonly [string, Arg]> {
  const table = new Map<string, readonly [string, Arg]>();
  for (const [name, arg] of Object.entries({ ...GLOBAL_ARGS, ...args } as Args)) {
    if (arg.type === "positional") continue;
    const alias = (arg as { alias?: string | string[] }).alias;
    const aliases = alias === undefined ? [] : Array.isArray(alias) ? alias : [alias];
    if (arg.permission) for (const n of PERMISSION_FLAG_NAMES) table.set(`--${n}`, [n, arg]);
    table.set(`--${name}`, [name, arg]);
    for (const a of aliases) table.set(`-${a}`, [name, arg]);
  }
  return table;
}

/** The command line read with a command's declaration (`args`) and the global flags. */
export function scanFlags(argv: readonly string[], args: Args): Scanned {
  const known = flagTable(args);
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
    const written = tok.slice(0, eq > 0 ? eq : undefined);
    const found = tok.startsWith("--") || written.length === 2 ? known.get(written) : undefined;
    if (found === undefined) {
      // The nearest flag (this command's and the global ones, the permission flags among them; `-jsn` too),
      // named by the entry point; a one-letter alias is too short to tell which was meant.
      const rawName = written.replace(/^--?/, "");
      const among =
        rawName.length < 2 ? [] : [...known.keys()].filter((k) => k.startsWith("--")).map((k) => k.slice(2));
      throw usageError(`unknown flag ${written}`, "run with --help to see the flags this command takes", {
        name: rawName,
        among,
        show: (n) => `--${n}`,
      });
    }
    const [name, arg] = found;
    const inline = eq > 0 ? tok.slice(eq + 1) : undefined;
    if (arg.type === "boolean") {
      if (inline !== undefined) throw usageError(`--${name} takes no value (got "${inline}")`);
      flags[name] = true;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      value = argv[++i];
      if (value === undefined) throw usageError(`--${name} needs a value`, `write --${name} VALUE or --${name}=VALUE`);
    }
    if (arg.repeat) ((flags[name] ??= []) as string[]).push(value);
    else if (flags[name] !== undefined) throw usageError(`--${name} was given twice`);
    else flags[name] = value;
  }
  return { flags, positionals, permissions };
}

/** Whether a global flag takes the next word as its value (the entry point skips it looking for the command). */
export const takesValue = (token: string): boolean => {
  const arg = (GLOBAL_ARGS as Args)[token.replace(/^--?/, "")];
  return arg !== undefined && arg.type !== "boolean" && !arg.permission;
};

export const str = (s: Scanned, name: string): string | undefined => s.flags[name] as string | undefined;
export const bool = (s: Scanned, name: string): boolean => s.flags[name] === true;
export const multi = (s: Scanned, name: string): string[] => (s.flags[name] as string[] | undefined) ?? [];
