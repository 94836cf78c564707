// What narrows a served catalog, chosen on the command line: the profile (`--profile`, shared with
// `tools --profile`) and the names clients see (`--name-budget`). An unknown profile is a usage
// error listing the known ones; a config profile that redefines a built-in one fails the boot.
import { bootError, usageError } from "../result/result.ts";
import type { Booted } from "../runtime/boot.ts";
import { parseNameBudget, servedNames, type ServedNames } from "../serve/names.ts";
import { resolveProfile, type Profile } from "../serve/profiles.ts";

/** The profile named on the command line (none: full). */
export function profileFor(booted: Booted, name: string | undefined): Profile {
  const r = resolveProfile(name, booted.config.values.profiles);
  if (!r.ok)
    throw r.refusal.code === "profile.unknown"
      ? usageError(r.refusal.message, "pass one of those to --profile")
      : bootError(r.refusal.message);
  return r.value;
}

/**
 * The profile and the served names. Names are minted over the whole catalog (as `tools --served`
 * shows them), so a tool's served name does not depend on the profile.
 */
export function servingChoices(
  booted: Booted,
  profile: string | undefined,
  budget: string | undefined,
): { profile: Profile; names: ServedNames } {
  const b = parseNameBudget(budget);
  if (!b.ok) throw usageError(b.refusal.message, "for example --name-budget 44");
  return {
    profile: profileFor(booted, profile),
    names: servedNames(
      booted.catalog.descriptors.map((d) => d.name),
      b.value,
    ),
  };
}
