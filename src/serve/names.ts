// Served names: the catalog's names as an MCP client can take them. Clients prefix them
// (`mcp__toolgate__…`) and refuse more than 64 characters or anything outside
// ^[a-zA-Z0-9_-]{1,64}$; a name that fits the budget stays, any other becomes a readable stem plus
// a digest of the whole name. Deterministic (no clock, no random), reversible, never two-to-one. Pure.
import { createHash } from "node:crypto";
import { ok, refuse, type Outcome } from "../result/result.ts";

/** 64 minus room for a 20-character client prefix. */
export const DEFAULT_NAME_BUDGET = 44;
export const MIN_NAME_BUDGET = 16;
export const MAX_NAME_BUDGET = 64;

export interface ServedNames {
  /** Catalog name → served name (every name given). */
  readonly toServed: ReadonlyMap<string, string>;
  /** Served name → catalog name: a call by its served name reaches exactly that entry. */
  readonly fromServed: ReadonlyMap<string, string>;
}

const CLIENT_RULE = /^[A-Za-z0-9_-]+$/;
/** Clients and the catalog treat these as one name (SPEC.md "Names": lowercase, `-` → `_`). */
const normal = (n: string) => n.toLowerCase().replaceAll("-", "_");

/** `--name-budget N`: a whole number from 16 to 64 (undefined: the default). */
export function parseNameBudget(raw: string | undefined): Outcome<number> {
  if (raw === undefined) return ok(DEFAULT_NAME_BUDGET);
  const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (Number.isInteger(n) && n >= MIN_NAME_BUDGET && n <= MAX_NAME_BUDGET) return ok(n);
  return refuse(
    "name_budget.invalid",
    `--name-budget must be a whole number from ${MIN_NAME_BUDGET} to ${MAX_NAME_BUDGET} (got ${JSON.stringify(raw)}): the longest served name, 64 minus the prefix your client puts in front (default ${DEFAULT_NAME_BUDGET})`,
  );
}

export function servedNames(names: readonly string[], budget: number = DEFAULT_NAME_BUDGET): ServedNames {
  if (!Number.isInteger(budget) || budget < MIN_NAME_BUDGET || budget > MAX_NAME_BUDGET) throw new RangeError(`name budget ${budget} is outside ${MIN_NAME_BUDGET}..${MAX_NAME_BUDGET} (parseNameBudget checks it first)`);
  const toServed = new Map<string, string>();
  const fromServed = new Map<string, string>();
  const taken = new Set<string>();
  const fits = (n: string) => n.length <= budget && CLIENT_RULE.test(n);
  // Names that fit keep themselves and their place first, so no shortened name can take it.
  for (const n of names) {
    if (!fits(n) || toServed.has(n)) continue;
    toServed.set(n, n);
    fromServed.set(n, n);
    taken.add(normal(n));
  }
  // In a fixed order, so the same set of names always gives the same mapping.
  const rest = [...new Set(names.filter((n) => !fits(n)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const n of rest) {
    const served = shortened(n, budget, taken);
    toServed.set(n, served);
    fromServed.set(served, n);
    taken.add(normal(served));
  }
  return { toServed, fromServed };
}

/**
 * `stem_<digest>`: the name's legal characters cut to fit, then 8 hex of sha256(name) (more on a
 * clash). Every candidate ends in `_` + a suffix without `_` or `-`, so candidates with different
 * suffixes differ even after normalization; the counted fallback has more candidates than there are
 * taken names, so one is always free.
 */
function shortened(name: string, budget: number, taken: ReadonlySet<string>): string {
  const stem = name.replace(/[^A-Za-z0-9_-]+/g, "_");
  const hex = createHash("sha256").update(name, "utf8").digest("hex");
  const withSuffix = (suffix: string) => `${stem.slice(0, Math.max(0, budget - 1 - suffix.length)).replace(/[_-]+$/, "")}_${suffix}`;
  for (const len of [8, 12, 16]) {
    if (len + 2 > budget) break;
    const c = withSuffix(hex.slice(0, len));
    if (!taken.has(normal(c))) return c;
  }
  for (let i = 0; i <= taken.size; i++) {
    const c = withSuffix(`${hex.slice(0, 8)}x${i.toString(36)}`);
    if (!taken.has(normal(c))) return c;
  }
  throw new Error(`no free served name for ${JSON.stringify(name)}`); // unreachable: more candidates than taken names
}
