// The caller rules of a trusted config's serve.callers: which callers of serve --http --oauth-issuer
// may call, and what each gets. A rule matches a token's claims (every key it gives must hold: sub
// and client_id by name or `*` wildcard, at least one of the groups, every one of the scopes); the
// first rule that matches gives its profile and approvals over the serve line's, which it only
// narrows: the tools both profiles offer, the --approve names both allow. No rule matches: 403.
// Without serve.callers every token the issuer signed for this resource gets the serve line. Pure.
import { ok, refuse, type Outcome } from "../../result/result.ts";
import { callerKey, callerLabel, type ServedCaller } from "../caller.ts";
import { resolveProfile, wildcard, type Profile, type ProfileConfig } from "../profiles.ts";
import type { Claims } from "./verify.ts";

type Names = string | readonly string[];

export interface CallerRule {
  readonly name?: string;
  readonly match?: {
    readonly sub?: Names;
    readonly client_id?: Names;
    readonly groups?: Names;
    readonly scopes?: Names;
  };
  readonly profile?: string;
  readonly approve?: readonly string[];
  readonly requests_per_minute?: number;
  readonly concurrent_sessions?: number;
}

export interface LineNarrowing {
  /** The serve line's profile (--profile). */
  readonly profile: Profile;
  /** The serve line's --approve names ("all" included). */
  readonly approved: ReadonlySet<string>;
  /** The config's profiles (a rule names one, or a built-in one). */
  readonly profiles?: Readonly<Record<string, ProfileConfig>>;
}

export type Admit = (claims: Claims) => ServedCaller | { readonly refused: string };

const list = (n: Names | undefined): readonly string[] | undefined =>
  n === undefined ? undefined : typeof n === "string" ? [n] : n;

/** The line's profile narrowed by the rule's: a tool (and a call) is offered when both offer it. */
export function narrowed(line: Profile, own: Profile): Profile {
  if (line.name === "full") return own;
  return {
    name: `${line.name}+${own.name}`,
    offers: (tool, args) => line.offers(tool, args) && own.offers(tool, args),
  };
}

/** The --approve names a rule keeps: its own, as far as the line's allow them ("all" means all the line's). */
export function approvalsWithin(
  line: ReadonlySet<string>,
  rule: readonly string[] | undefined,
): ReadonlySet<string> | undefined {
  if (rule === undefined) return undefined;
  if (line.has("all")) return new Set(rule);
  if (rule.includes("all")) return line;
  return new Set(rule.filter((t) => line.has(t)));
}

function matcher(rule: CallerRule): (c: Claims) => boolean {
  const m = rule.match ?? {};
  const sub = list(m.sub)?.map(wildcard);
  const client = list(m.client_id)?.map(wildcard);
  const groups = list(m.groups);
  const scopes = list(m.scopes);
  return (c) =>
    (sub === undefined || (c.sub !== undefined && sub.some((f) => f(c.sub!)))) &&
    (client === undefined || (c.clientId !== undefined && client.some((f) => f(c.clientId!)))) &&
    (groups === undefined || groups.some((g) => c.groups.includes(g))) &&
    (scopes === undefined || scopes.every((s) => c.scopes.includes(s)));
}

/**
 * The admission of each caller by `rules` (undefined: everyone, with the line's narrowing); a rule naming an unknown
 * profile is refused.
 */
export function callerRules(rules: readonly CallerRule[] | undefined, line: LineNarrowing): Outcome<Admit> {
  if (rules === undefined) {
    return ok((claims) => {
      const id = { sub: claims.sub ?? null, client_id: claims.clientId ?? null };
      return { key: callerKey(id), id };
    });
  }
  const compiled: { test: (c: Claims) => boolean; made: Omit<ServedCaller, "key" | "id"> }[] = [];
  for (const [i, rule] of rules.entries()) {
    let profile: Profile | undefined;
    if (rule.profile !== undefined) {
      const p = resolveProfile(rule.profile, line.profiles);
      if (!p.ok) return refuse("profile.unknown", `serve.callers[${i}].profile: ${p.refusal.message}`);
      profile = narrowed(line.profile, p.value);
    }
    const approved = approvalsWithin(line.approved, rule.approve);
    const label = `rule ${rule.name ?? `#${i + 1}`}${rule.profile ? `, profile ${rule.profile}` : ""}`;
    compiled.push({
      test: matcher(rule),
      made: {
        rule: label,
        ...(profile ? { profile } : {}),
        ...(approved ? { approved } : {}),
        ...(rule.requests_per_minute ? { perMinute: rule.requests_per_minute } : {}),
        ...(rule.concurrent_sessions ? { maxSessions: rule.concurrent_sessions } : {}),
      },
    });
  }
  return ok((claims) => {
    const id = { sub: claims.sub ?? null, client_id: claims.clientId ?? null };
    const hit = compiled.find((r) => r.test(claims));
    if (!hit) return { refused: `no caller rule of this server admits ${callerLabel(id)}` };
    return { key: callerKey(id), id, ...hit.made };
  });
}
