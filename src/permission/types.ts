// Permission vocabulary shared by flags, config grants, matching and the prompter.
// Stage 4 of the call pipeline (after profile, before approval); nothing here touches the world.

import type { Code } from "../result/codes.ts";

export const PERM_KINDS = ["read", "write", "run", "net", "env"] as const;
export type PermKind = (typeof PERM_KINDS)[number];

/**
 * One permission a call needs. read/write: a path (absolute or relative to the cwd);
 * run: a program name or path; net: `host` or `host:port` (IPv6 in brackets); env: a variable name.
 */
export interface Need {
  kind: PermKind;
  value: string;
  /**
   * read/write of a whole folder (a walk): a deny anywhere below it refuses the need, since
   * the tool would otherwise reach what was denied.
   */
  recursive?: boolean;
  /**
   * Checked against denies only (never prompted, never needs an allow): an authored tool's program, which --deny-run
   * still refuses.
   */
  denyOnly?: true;
  /**
   * Said after "is not granted" in the refusal and shown in the prompt: what the value is, when the flag alone would
   * puzzle.
   */
  note?: string;
}

/** `true` grants (or denies) the whole kind; a list grants the listed values. */
export type GrantValue = true | string[];

export interface PermissionGrants {
  allow: Partial<Record<PermKind, GrantValue>>;
  deny: Partial<Record<PermKind, GrantValue>>;
  /**
   * Every value an allow listed by name, kept when the kind is also allowed whole (`--allow-read
   * --allow-read=.env`): a well-known secret file is granted only by a grant naming it.
   */
  named?: Partial<Record<PermKind, string[]>>;
}

/**
 * One check's answer, for a need against the grants, a server's start or a call's gate: passed,
 * with the value it was granted as (a canonical value: a real path, a program's real path), or refused.
 */
export type Check = Granted | Refused;

export interface Granted {
  readonly ok: true;
  /** The canonical value matched: what a handler must then open. The permission stage always gives it. */
  readonly value?: string;
}

export interface Refused {
  readonly ok: false;
  readonly code: Code;
  readonly message: string;
  /** The flag that would grant the need (for an explicit deny, only after the deny is lifted). */
  readonly flag?: string;
  /** Set when a deny grant refused it, e.g. `--deny-read=/srv/secret`. */
  readonly deniedBy?: string;
}
