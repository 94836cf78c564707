// The child's environment, built by one pure function: cleared, then the
// fixed base, the caller's allowlist and pass-through groups (copied from the parent env it is
// given), explicit values, and secret bindings. Nothing here reads process.env.
import { refuse, type Outcome, type Refusal } from "../result/result.ts";
import { isBunSwitch } from "./bun-switches.ts";

export const BASE_ENV: Readonly<Record<string, string>> = Object.freeze({
  PATH: "/usr/bin:/bin:/usr/sbin:/sbin:/opt/homebrew/bin:/usr/local/bin",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
});

/** Named pass-through groups a config can opt into per tool or server. */
export const PASS_GROUPS = Object.freeze({
  /** A scrubbed child behind a corporate proxy otherwise fails to reach anything. */
  proxy: Object.freeze([
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "NODE_EXTRA_CA_CERTS",
  ]),
});
export type PassGroup = keyof typeof PASS_GROUPS;

/** Shorter bound values are refused: the redactor skips them (boundary/redact.ts MIN_SECRET_LENGTH). */
export const SECRET_MIN_LENGTH = 4;

/**
 * Variables that change what a process executes or loads before its own code runs. A binding,
 * value or allowlist entry naming one is refused: it would turn configuration into code injection.
 */
const EXECUTION_CONTROL = new Set([
  // Shells
  "BASH_ENV",
  "ENV",
  "SHELLOPTS",
  "BASHOPTS",
  "PS4",
  "PROMPT_COMMAND",
  "IFS",
  "CDPATH",
  "GLOBIGNORE",
  // Interpreters: options and module search paths load code before the script's own
  "NODE_OPTIONS",
  "NODE_PATH",
  "PERL5OPT",
  "PERL5LIB",
  "PERLLIB",
  "PERL5DB",
  "RUBYOPT",
  "RUBYLIB",
  "PYTHONPATH",
  "PYTHONHOME",
  "PYTHONSTARTUP",
  "PYTHONINSPECT",
  "PYTHONWARNINGS",
  "PYTHONUSERBASE",
  "PYTHONBREAKPOINT",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  // git: config (core.pager, core.fsmonitor, aliases), the repository and the programs it starts
  "GIT_EXEC_PATH",
  "GIT_SSH",
  "GIT_SSH_COMMAND",
  "GIT_CONFIG_PARAMETERS",
  "GIT_CONFIG_COUNT",
  "GIT_CONFIG",
  "GIT_CONFIG_GLOBAL",
  "GIT_CONFIG_SYSTEM",
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_COMMON_DIR",
  "GIT_TEMPLATE_DIR",
  "GIT_PAGER",
  "GIT_EDITOR",
  "GIT_SEQUENCE_EDITOR",
  "GIT_ASKPASS",
  "GIT_EXTERNAL_DIFF",
  "GIT_PROXY_COMMAND",
  // Programs other programs start by name
  "PAGER",
  "EDITOR",
  "VISUAL",
  "LESSOPEN",
  "LESSCLOSE",
  "SSH_ASKPASS",
]);
/** GIT_CONFIG_KEY_<n> / GIT_CONFIG_VALUE_<n> are config entries (with GIT_CONFIG_COUNT). */
const EXECUTION_CONTROL_PREFIXES = ["LD_", "DYLD_", "BASH_FUNC_", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"];

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

declare const built: unique symbol;

/** The environment a child gets. Only childEnv() makes one, so every spawn went through it. */
export interface ChildEnv {
  readonly vars: Readonly<Record<string, string>>;
  /** Values to redact from every view of the child's output: bound secrets and proxy credentials. */
  readonly secrets: readonly string[];
  readonly [built]: true;
}

export interface ChildEnvInput {
  /** The parent environment to copy allowlisted names from (the entry point passes process.env). */
  readonly parent: Readonly<Record<string, string | undefined>>;
  /** Names copied from `parent` when present there. */
  readonly allow?: readonly string[];
  readonly groups?: readonly PassGroup[];
  /** Explicit values set by the caller (e.g. LAS_ONLY). */
  readonly values?: Readonly<Record<string, string>>;
  /** Secret bindings, name → value; the values are never logged and always redacted. */
  readonly secrets?: Readonly<Record<string, string>>;
  /** Further values to redact (a parent variable inside a longer bound value or an argument). */
  readonly masks?: readonly string[];
  /** A folder put before the PATH: where a server's command was found. */
  readonly pathPrefix?: string;
  /**
   * A trusted config's `env.PATH` for a server: replaces the fixed PATH (absolute folders only, so
   * the folder a child runs in never decides what it finds). Nothing else may set PATH.
   */
  readonly path?: string;
}

type Source = "allow" | "group" | "value" | "secret";
type Refused = { ok: false; refusal: Refusal };

export function childEnv(input: ChildEnvInput): Outcome<ChildEnv> {
  const vars: Record<string, string> = { ...BASE_ENV };
  if (input.path !== undefined) {
    const bad = pathProblem(input.path);
    if (bad) return refuse("env.invalid_value", `PATH ${bad}`);
    vars.PATH = input.path;
  }
  if (input.pathPrefix !== undefined) {
    if (!input.pathPrefix.startsWith("/") || /[:\0]/.test(input.pathPrefix))
      return refuse(
        "env.invalid_value",
        `the folder put before PATH must be an absolute path without ":" (got ${JSON.stringify(input.pathPrefix)})`,
      );
    vars.PATH = `${input.pathPrefix}:${vars.PATH}`;
  }
  const from = new Map<string, Source>();
  const secrets: string[] = [];

  const add = (name: string, value: string | undefined, source: Source): Refused | null => {
    const bad = checkName(name, source);
    if (bad) return bad;
    const prior = from.get(name);
    // The allowlist and a group may both name a parent variable: it is the same value either way.
    if (prior !== undefined && !(isPassThrough(prior) && isPassThrough(source))) {
      return refuse("env.conflict", `${name} is given both as ${label(prior)} and as ${label(source)}; keep one`);
    }
    if (value === undefined) return null;
    if (value.includes("\0")) return refuse("env.invalid_value", `the value for ${name} contains a NUL character`);
    from.set(name, source);
    vars[name] = value;
    return null;
  };

  for (const name of input.allow ?? []) {
    const bad = add(name, input.parent[name], "allow");
    if (bad) return bad;
  }
  for (const group of input.groups ?? []) {
    const names = PASS_GROUPS[group];
    if (!names)
      return refuse(
        "env.unknown_group",
        `unknown pass-through group "${group}"; known: ${Object.keys(PASS_GROUPS).join(", ")}`,
      );
    for (const name of names) {
      const bad = add(name, input.parent[name], "group");
      if (bad) return bad;
      if (group === "proxy" && vars[name] !== undefined) secrets.push(...proxyCredentials(vars[name]));
    }
  }
  for (const [name, value] of Object.entries(input.values ?? {})) {
    const bad = add(name, value, "value");
    if (bad) return bad;
  }
  for (const [name, value] of Object.entries(input.secrets ?? {})) {
    if (value.length < SECRET_MIN_LENGTH) {
      return refuse(
        "env.secret_too_short",
        `the secret bound to ${name} is shorter than ${SECRET_MIN_LENGTH} characters and could not be ` +
          `redacted; bind a real secret`,
      );
    }
    const bad = add(name, value, "secret");
    if (bad) return bad;
    secrets.push(value);
  }
  secrets.push(...(input.masks ?? []).filter((m) => m.length >= SECRET_MIN_LENGTH));
  const env = { vars: Object.freeze(vars), secrets: Object.freeze([...new Set(secrets)]) } as unknown as ChildEnv;
  return { ok: true, value: env };
}

function checkName(name: string, source: Source): Refused | null {
  if (!NAME.test(name))
    return refuse("env.invalid_name", `"${name}" is not a valid environment variable name (${label(source)})`);
  if (name in BASE_ENV)
    return refuse("env.reserved", `${name} is fixed by the launcher and cannot be set (${label(source)})`);
  if (isExecutionControl(name)) {
    return refuse(
      "env.execution_control",
      `${name} changes what the child executes before its own code runs; it cannot be passed to a child ` +
        `(${label(source)})`,
    );
  }
  return null;
}

/** Why a PATH value cannot be a child's (an empty, relative or NUL entry), or null. */
export function pathProblem(value: string): string | null {
  if (value.includes("\0")) return "contains a NUL character";
  const relative = value.split(":").find((d) => !d.startsWith("/"));
  if (relative !== undefined)
    return `has ${relative === "" ? "an empty entry (a stray ':', which means the current folder)" : `the relative entry ${JSON.stringify(relative)}`}: give absolute folders separated by ':' (\${workspaceFolder}/bin is one)`;
  return null;
}

/**
 * Bun's runtime switches (BUN_OPTIONS, BUN_INSPECT*, ...) too: they would reach the guardian, toolgate itself
 * (guard.ts).
 */
export function isExecutionControl(name: string): boolean {
  return EXECUTION_CONTROL.has(name) || EXECUTION_CONTROL_PREFIXES.some((p) => name.startsWith(p)) || isBunSwitch(name);
}

const isPassThrough = (s: Source) => s === "allow" || s === "group";
const label = (s: Source) =>
  ({
    allow: "an allowlisted name",
    group: "a pass-through group member",
    value: "an explicit value",
    secret: "a secret binding",
  })[s];

/** scheme://userinfo@ or a bare userinfo@ before any "/", capturing the userinfo. */
const USERINFO = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)?([^@/?#\s]*)@/;

/** A proxy URL for display: its credentials become *** (`http://user:pass@host` → `http://***@host`). */
export function redactProxyUrl(url: string): string {
  const m = USERINFO.exec(url);
  return m ? `${m[1] ?? ""}***@${url.slice(m[0].length)}` : url;
}

/** The credential forms a proxy URL may show up as in output: raw userinfo, raw and decoded password. */
function proxyCredentials(url: string): string[] {
  const userinfo = USERINFO.exec(url)?.[2];
  if (!userinfo) return [];
  const colon = userinfo.indexOf(":");
  const password = colon === -1 ? "" : userinfo.slice(colon + 1);
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // A malformed escape: the raw form is all the child can print.
  }
  return [userinfo, password, decoded].filter((s) => s.length >= SECRET_MIN_LENGTH);
}
