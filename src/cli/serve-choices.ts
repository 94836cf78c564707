// What narrows a served catalog, chosen on the command line: the profile (`--profile`, shared with
// `tools --profile`) and the names clients see (`--name-budget`). An unknown profile is a usage
// error listing the known ones; a config profile that redefines a built-in one fails the boot.
import { bootError, usageError } from "../result/result.ts";
import type { Booted } from "../runtime/boot.ts";
import type { ServedNames } from "../serve/hub.ts";
import { resolveProfile, type Profile, type ProfileConfig } from "../serve/profiles.ts";

/** The profile named on the command line (none: full). */
export function profileFor(booted: Booted, name: string | undefined): Profile {
  const r = resolveProfile(name, booted.config.values.profiles as Record<string, ProfileConfig> | undefined);
  if (!r.ok) throw r.refusal.code === "profile.unknown" ? usageError(r.refusal.message, "pass one of those to --profile") : bootError(r.refusal.message);
  return r.value;
}

export function servingChoices(booted: Booted, profile: string | undefined, _budget: string | undefined): { profile: Profile; names: ServedNames } {
  const names = booted.catalog.descriptors.map((d) => d.name);
  const same = new Map(names.map((n) => [n, n]));
  return { profile: profileFor(booted, profile), names: { toServed: same, fromServed: same } };
}
