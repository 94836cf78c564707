// Served names: the catalog's names as an MCP client can take them. Clients prefix them
// (`mcp__toolgate__…`) and refuse more than 64 characters or anything outside
// ^[a-zA-Z0-9_-]{1,64}$; a name that fits the budget stays, any other becomes a readable stem plus
// a digest of the whole name (the catalog's own mapping, catalog/names.ts). Deterministic,
// reversible, never two-to-one. Pure.
import { mapNames } from "../catalog/names.ts";
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

/** `--name-budget N`: a whole number from 16 to 64 (undefined: the default). */
export function parseNameBudget(raw: string | undefined): Outcome<number> {
  if (raw === undefined) return ok(DEFAULT_NAME_BUDGET);
  const n = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (Number.isInteger(n) && n >= MIN_NAME_BUDGET && n <= MAX_NAME_BUDGET) return ok(n);
  return refuse(
    "name_budget.invalid",
    `--name-budget must be a whole number from ${MIN_NAME_BUDGET} to ${MAX_NAME_BUDGET} (got ` +
      `${JSON.stringify(raw)}): the longest served name, 64 minus the prefix your client puts in front (default ` +
      `${DEFAULT_NAME_BUDGET})`,
  );
}

export function servedNames(names: readonly string[], budget: number = DEFAULT_NAME_BUDGET): ServedNames {
  if (!Number.isInteger(budget) || budget < MIN_NAME_BUDGET || budget > MAX_NAME_BUDGET)
    throw new RangeError(
      `name budget ${budget} is outside ${MIN_NAME_BUDGET}..${MAX_NAME_BUDGET} (parseNameBudget checks it first)`,
    );
  const toServed = mapNames(names, budget);
  const fromServed = new Map([...toServed].map(([n, served]) => [served, n]));
  return { toServed, fromServed };
}
