// Decides one need against grants: both sides parsed once into typed descriptors (descriptor.ts), then matched per
// kind.
// Deny wins over allow. Grants are resolved once (resolveGrants) so a later symlink swap cannot widen them.
import { basename, isAbsolute, relative } from "node:path";
import { hostCovers } from "./net.ts";
import { resolveReal, which } from "../fs/real-path.ts";
import { isSecretPath } from "../fs/secret-files.ts";
import {
  descriptorText,
  parseDescriptor,
  writtenDescriptor,
  type Descriptor,
  type NetDescriptor,
} from "./descriptor.ts";
import { PERM_KINDS, type GrantValue, type Need, type PermKind, type PermissionGrants } from "./types.ts";

export type Decision = "granted" | "denied" | "prompt";

export interface MatchOptions {
  /** The PATH used to find programs; without it a run grant by name matches only that bare name. */
  pathEnv?: string;
  /** The caller's folder (a real path): a refusal's flag writes a workspace path relative to it. */
  from?: string;
}

/** Grants parsed once into descriptors: real paths, normalized hosts. */
export interface ResolvedGrants {
  allow: Partial<Record<PermKind, true | Descriptor[]>>;
  deny: Partial<Record<PermKind, true | Descriptor[]>>;
  /** Real paths a read or write allow named (and files a prompt's yes named): only these grant a secret file. */
  named: Partial<Record<"read" | "write", string[]>>;
}

export interface Evaluation {
  decision: Decision;
  /** The canonical need value (real path, normalized host:port), or the raw value when invalid. */
  value: string;
  /** The need parsed (absent when invalid): what the grants were matched against. */
  descriptor?: Descriptor;
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
function netMatches(g: NetDescriptor, n: NetDescriptor, forDeny: boolean): boolean {
  if (!hostCovers(g.host, n.host) && !(forDeny && hostCovers(n.host, g.host))) return false;
  if (g.port === undefined) return true;
  if (n.port === undefined) return forDeny;
  return g.port === n.port;
}

function matches(grant: Descriptor, need: Descriptor, ctx: Ctx, forDeny: boolean): boolean {
  switch (need.kind) {
    case "read":
    case "write":
      return grant.kind === need.kind && pathCovers(grant.path, need.path);
    case "env":
      if (grant.kind !== "env") return false;
      return grant.name.endsWith("*") ? need.name.startsWith(grant.name.slice(0, -1)) : grant.name === need.name;
    case "net":
      return grant.kind === "net" && netMatches(grant, need, forDeny);
    case "run": {
      if (grant.kind !== "run") return false;
      if (grant.program === need.program) return true;
      const g = programPath(grant.program, ctx);
      if (g !== null && g === programPath(need.program, ctx)) return true;
      // A deny by bare name also refuses any path to a program of that name, PATH or not.
      return forDeny && !grant.program.includes("/") && basename(need.program) === grant.program;
    }
  }
}

const parsedText = (kind: PermKind, raw: string, cwd: string): string | null => {
  const d = parseDescriptor(kind, raw, cwd);
  return d === null ? null : descriptorText(d);
};

function resolveValue(kind: PermKind, value: GrantValue | undefined, cwd: string, keepInvalid: boolean) {
  if (value === undefined || value === true) return value;
  const out = new Map<string, Descriptor>();
  for (const raw of value) {
    // An allow that cannot be resolved grants nothing; a deny that cannot is kept as written.
    const d = parseDescriptor(kind, raw, cwd) ?? (keepInvalid ? writtenDescriptor(kind, raw) : null);
    if (d !== null) out.set(descriptorText(d), d);
  }
  return [...out.values()];
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
      const listed = [
        ...(grants.named?.[kind] ?? []),
        ...(Array.isArray(grants.allow[kind]) ? (grants.allow[kind] as string[]) : []),
      ];
      resolved.named[kind] = [...new Set(listed.flatMap((raw) => parsedText(kind, raw, cwd) ?? []))];
    }
  }
  return resolved;
}

function firstMatch(value: true | Descriptor[] | undefined, need: Descriptor, ctx: Ctx, forDeny: boolean) {
  if (value === undefined) return undefined;
  if (value === true) return true;
  return value.find((grant) => matches(grant, need, ctx, forDeny));
}

/** Decides a need against already-resolved grants, with the canonical value and the reason. */
export function evaluate(grants: ResolvedGrants, need: Need, cwd: string, opts: MatchOptions = {}): Evaluation {
  const descriptor = parseDescriptor(need.kind, need.value, cwd);
  if (descriptor === null) {
    const invalid =
      need.kind === "net" ? "is not a host or host:port" : "cannot be resolved (empty, a NUL byte, or a symlink loop)";
    return { decision: "denied", value: need.value, invalid };
  }
  const value = descriptorText(descriptor);
  const ctx: Ctx = { cwd, ...opts };
  const denied = firstMatch(grants.deny[need.kind], descriptor, ctx, true);
  if (denied !== undefined) {
    const deniedBy =
      denied === true ? `--deny-${need.kind}` : `--deny-${need.kind}=${shellQuote(descriptorText(denied))}`;
    return { decision: "denied", value, descriptor, deniedBy };
  }
  // A well-known secret file: only a grant naming the file itself (--allow-read=.env), not
  // --allow-read or a folder's grant; a deny above still wins.
  if (descriptor.kind === "read" || descriptor.kind === "write") {
    if (isSecretPath(value))
      return {
        decision: grants.named[descriptor.kind]?.includes(value) ? "granted" : "prompt",
        value,
        descriptor,
        secret: true,
      };
  }
  const allowed = firstMatch(grants.allow[need.kind], descriptor, ctx, false);
  return { decision: allowed === undefined ? "prompt" : "granted", value, descriptor };
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
  const d = parseDescriptor(need.kind, need.value, cwd);
  return allowFlag(need.kind, d === null ? need.value : descriptorText(d), cwd, from);
}

/**
 * The flag that grants `value`, already canonical (an evaluation's): nothing is resolved again but the workspace's
 * root.
 */
export function allowFlag(kind: PermKind, value: string, workspace?: string, from?: string): string {
  return `--allow-${kind}=${shellQuote(shownFrom(kind, value, workspace, from))}`;
}

function shownFrom(kind: PermKind, value: string, workspace: string | undefined, from: string | undefined): string {
  if (workspace === undefined || from === undefined || (kind !== "read" && kind !== "write") || !isAbsolute(value))
    return value;
  const root = resolveReal(workspace, "/") ?? workspace;
  if (!pathCovers(root, value) || !pathCovers(root, from)) return value;
  return relative(from, value) || ".";
}
