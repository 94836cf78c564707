// Profiles: which tools a session offers (step 3 of the call pipeline; `serve --profile`,
// `tools --profile`). Built-ins full, scout and writer, plus toolgate.json's "profiles" with
// include/exclude by name and `*` wildcards. A profile only narrows the catalog. Pure.
import { BUILTIN_PROFILE_NAMES } from "../config/profiles.ts";
import { ok, refuse, type Outcome } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import type { Profile } from "../runtime/invoke.ts";

export type { Profile } from "../runtime/invoke.ts";

export interface ProfileConfig {
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
}

export const DEFAULT_PROFILE = "full";

/** desk without `text` reads the page; with it, it replaces the page (src/tools/lane/desk.ts). */
const deskReads = (args: unknown) =>
  args !== null && typeof args === "object" && (args as { text?: unknown }).text === undefined;

const listed = (
  name: string,
  tools: readonly string[],
  only?: Record<string, (args: unknown) => boolean>,
): Profile => ({
  name,
  offers: (tool, args) => tools.includes(tool) && (args === undefined || (only?.[tool]?.(args) ?? true)),
});

/** The read half; the rails (bank_search, bank_get, librarian, research) when the catalog has them. */
const SCOUT = [
  "file_read",
  "file_find",
  "file_search",
  "skill_list",
  "skill_load",
  "plan",
  "desk",
  "bank_search",
  "bank_get",
  "librarian",
  "research",
];
const WRITER = ["file_read", "file_edit", "file_write"];

const BUILTINS: Readonly<Record<(typeof BUILTIN_PROFILE_NAMES)[number], Profile>> = {
  full: { name: "full", offers: () => true },
  scout: listed("scout", SCOUT, { desk: deskReads }),
  writer: listed("writer", WRITER),
};

/** `*` matches any run of characters (none included); everything else is literal; the whole name must match. */
export function wildcard(pattern: string): (name: string) => boolean {
  const re = new RegExp(
    `^${pattern
      .split("*")
      .map((p) => p.replace(/[\\^$.|?+()[\]{}]/g, "\\$&"))
      .join(".*")}$`,
    "s",
  );
  return (name) => re.test(name);
}

function fromConfig(name: string, c: ProfileConfig): Profile {
  const include = c.include?.map(wildcard);
  const exclude = (c.exclude ?? []).map(wildcard);
  // Exclude wins; no include means everything the catalog has.
  return {
    name,
    offers: (tool) => (include === undefined || include.some((m) => m(tool))) && !exclude.some((m) => m(tool)),
  };
}

/** The profile NAME (undefined: full), built in or from the config's "profiles" section. */
export function resolveProfile(
  name: string | undefined,
  configProfiles: Readonly<Record<string, ProfileConfig>> | undefined,
): Outcome<Profile> {
  const configured = configProfiles ?? {};
  // The config reader refuses this at boot with the file and line; kept here for other callers.
  const clash = BUILTIN_PROFILE_NAMES.find((n) => Object.hasOwn(configured, n));
  if (clash !== undefined)
    return refuse("profile.reserved", `the config's profiles.${clash} redefines the built-in profile "${clash}"`, {
      profile: clash,
    });
  const wanted = name ?? DEFAULT_PROFILE;
  if (Object.hasOwn(BUILTINS, wanted)) return ok(BUILTINS[wanted as keyof typeof BUILTINS]);
  if (Object.hasOwn(configured, wanted)) return ok(fromConfig(wanted, configured[wanted]!));
  const own = Object.keys(configured).sort();
  const known =
    `${BUILTIN_PROFILE_NAMES.join(", ")} (built ` +
    `in)${own.length ? `; ${own.join(", ")} (toolgate.json "profiles")` : ""}`;
  const names = [...BUILTIN_PROFILE_NAMES, ...own];
  const near = nearest(wanted, names);
  return refuse(
    "profile.unknown",
    `no profile named ${JSON.stringify(wanted)}; the profiles are: ${known}${didYouMean(near)}`,
    { profile: wanted, known: names, ...(near === undefined ? {} : { did_you_mean: near }) },
  );
}
