// Decides one need against grants: resolve both sides to canonical values, then match per kind.
// Deny wins over allow. Grants are resolved once (resolveGrants) so a later symlink swap cannot widen them.
import { basename, isAbsolute, relative } from "node:path";
import { formatNet, hostCovers, parseNet } from "./net.ts";
import { resolveReal, which } from "../fs/real-path.ts";
import { isSecretPath } from "../fs/secret-files.ts";
import { PERM_KINDS, type GrantValue, type Need, type PermKind, type PermissionGrants } from "./types.ts";

export type Decision = "granted" | "denied" | "prompt";

export interface MatchOptions {
  /** The PATH used to find programs; without it a run grant by name matches only that bare name. */
  pathEnv?: string;
  /** The caller's folder (a real path): a refusal's flag writes a workspace path relative to it. */
  from?: string;
}

/** Grants whose values are canonical: real paths, normalized hosts. Same shape as the input. */
export type ResolvedGrants = PermissionGrants;

export interface Evaluation {
  decision: Decision;
  /** The canonical need value (real path, normalized host:port), or the raw value when invalid. */
  value: string;
  /** For "denied": the deny flag that matched, e.g. `--deny-read=/srv`. */
  deniedBy?: string;
  /** For "denied": why the value could not be resolved (symlink loop, malformed host). */
  invalid?: string;
  /** read/write of a well-known secret file: only a grant naming it allows it (never a whole-kind or folder grant). */
  secret?: true;
}

interface Ctx {
  cwd: string;
  pathEnv?: string;
}

function canonical(kind: PermKind, raw: string, cwd: string): string | null {
  switch (kind) {
    case "read":
    case "write":
      return resolveReal(raw, cwd);
    case "run":
      return raw.includes("/") ? resolveReal(raw, cwd) : raw === "" ? null : raw;
    case "net": {
      const net = parseNet(raw);
      return net === null ? null : formatNet(net);
    }
    case "env":
      return raw === "" ? null : raw;
  }
}

/** Whole-segment containment: `/srv/a` covers `/srv/a` and `/srv/a/x`, never `/srv/ab`. */
export function pathCovers(grant: string, path: string): boolean {
  return path === grant || path.startsWith(grant === "/" ? "/" : `${grant}/`);
}

function programPath(program: string, ctx: Ctx): string | null {
  if (program.includes("/")) return program;
  return ctx.pathEnv === undefined ? null : which(program, ctx.pathEnv, ctx.cwd);
}

// A need without a port means "any port": only a host-wide grant allows it, while any deny
// on that host refuses it (allowing errs narrow, denying errs wide). `localhost` covers its
// loopback addresses; a deny of one of them also refuses `localhost` (it leads there).
function netMatches(grant: string, need: string, forDeny: boolean): boolean {
  const g = parseNet(grant);
  const n = parseNet(need);
  if (g === null || n === null) return false;
  if (!hostCovers(g.host, n.host) && !(forDeny && hostCovers(n.host, g.host))) return false;
  if (g.port === undefined) return true;
  if (n.port === undefined) return forDeny;
  return g.port === n.port;
}

function matches(kind: PermKind, grant: string, need: string, ctx: Ctx, forDeny: boolean): boolean {
  switch (kind) {
    case "read":
    case "write":
      return pathCovers(grant, need);
    case "env":
      return grant.endsWith("*") ? need.startsWith(grant.slice(0, -1)) : grant === need;
    case "net":
      return netMatches(grant, need, forDeny);
    case "run": {
      if (grant === need) return true;
      const g = programPath(grant, ctx);
      if (g !== null && g === programPath(need, ctx)) return true;
      // A deny by bare name also refuses any path to a program of that name, PATH or not.
      return forDeny && !grant.includes("/") && basename(need) === grant;
    }
  }
}

function resolveValue(kind: PermKind, value: GrantValue | undefined, cwd: string, keepInvalid: boolean) {
  if (value === undefined || value === true) return value;
  const out = new Set<string>();
  for (const raw of value) {
    const c = canonical(kind, raw, cwd);
    // An allow that cannot be resolved grants nothing; a deny that cannot is kept as written.
    if (c !== null) out.add(c);
    else if (keepInvalid) out.add(raw);
  }
  return [...out];
}

/** Resolves every grant value against `cwd` (relative paths, symlinks, host spelling). */
export function resolveGrants(grants: PermissionGrants, cwd: string): ResolvedGrants {
  const resolved: ResolvedGrants = { allow: {}, deny: {}, named: {} };
  for (const kind of PERM_KINDS) {
    const allow = resolveValue(kind, grants.allow[kind], cwd, false);
    const deny = resolveValue(kind, grants.deny[kind], cwd, true);
    if (allow !== undefined) resolved.allow[kind] = allow;
    if (deny !== undefined) resolved.deny[kind] = deny;
    if (kind === "read" || kind === "write") {
      const listed = [...(grants.named?.[kind] ?? []), ...(Array.isArray(grants.allow[kind]) ? (grants.allow[kind] as string[]) : [])];
      resolved.named![kind] = resolveValue(kind, listed, cwd, false) as string[];
    }
  }
  return resolved;
}

/** Whether a read/write need is a well-known secret file's (by its canonical, real path). */
export const isSecretNeed = (kind: PermKind, value: string): boolean => (kind === "read" || kind === "write") && isSecretPath(value);

function firstMatch(kind: PermKind, value: GrantValue | undefined, need: string, ctx: Ctx, forDeny: boolean) {
  if (value === undefined) return undefined;
  if (value === true) return true;
  return value.find((grant) => matches(kind, grant, need, ctx, forDeny));
}

/** Decides a need against already-resolved grants, with the canonical value and the reason. */
export function evaluate(grants: ResolvedGrants, need: Need, cwd: string, opts: MatchOptions = {}): Evaluation {
  const value = canonical(need.kind, need.value, cwd);
  if (value === null) {
    const invalid = need.kind === "net" ? "is not a host or host:port" : "cannot be resolved (empty, a NUL byte, or a symlink loop)";
    return { decision: "denied", value: need.value, invalid };
  }
  const ctx: Ctx = { cwd, ...opts };
  const denied = firstMatch(need.kind, grants.deny[need.kind], value, ctx, true);
  if (denied !== undefined) {
    const deniedBy = denied === true ? `--deny-${need.kind}` : `--deny-${need.kind}=${shellQuote(denied)}`;
    return { decision: "denied", value, deniedBy };
  }
  // A well-known secret file: only a grant naming the file itself (--allow-read=.env), not
  // --allow-read or a folder's grant; a deny above still wins.
  if (isSecretNeed(need.kind, value)) return { decision: grants.named?.[need.kind]?.includes(value) ? "granted" : "prompt", value, secret: true };
  const allowed = firstMatch(need.kind, grants.allow[need.kind], value, ctx, false);
  return { decision: allowed === undefined ? "prompt" : "granted", value };
}

/** granted, denied (by a deny grant, or unresolvable), or prompt (neither). */
export function decide(grants: PermissionGrants, need: Need, cwd: string, opts: MatchOptions = {}): Decision {
  return evaluate(resolveGrants(grants, cwd), need, cwd, opts).decision;
}

/** Quotes a flag value for a POSIX shell (and zsh) only when it needs it. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * The exact flag that grants `need`: `--allow-read=/real/path`, `--allow-net=example.com:443`.
 * `from`: the caller's folder (a real path); a path inside the workspace (`cwd`), asked from inside
 * it, is written relative to that folder, as a flag's relative path resolves (`--allow-write=reports`).
 */
export function flagFor(need: Need, cwd: string, from?: string): string {
  const value = canonical(need.kind, need.value, cwd) ?? need.value;
  return `--allow-${need.kind}=${shellQuote(shownFrom(need.kind, value, cwd, from))}`;
}

function shownFrom(kind: PermKind, value: string, workspace: string, from: string | undefined): string {
  if (from === undefined || (kind !== "read" && kind !== "write") || !isAbsolute(value)) return value;
  const root = resolveReal(workspace, "/") ?? workspace;
  if (!pathCovers(root, value) || !pathCovers(root, from)) return value;
  return relative(from, value) || ".";
}
