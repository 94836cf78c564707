// The names of the built-in profiles (defined in src/serve/profiles.ts). A config profile may not
// take one: `full` narrowed by a workspace file would silently mean something else. Pure.

export const BUILTIN_PROFILE_NAMES = ["full", "scout", "writer"] as const;

/** The key path of the first config profile that redefines a built-in one, or null. */
export function redefinedProfile(data: Readonly<Record<string, unknown>>): readonly string[] | null {
  const profiles = data.profiles;
  if (profiles === null || typeof profiles !== "object" || Array.isArray(profiles)) return null;
  const name = Object.keys(profiles).find((n) => (BUILTIN_PROFILE_NAMES as readonly string[]).includes(n));
  return name === undefined ? null : ["profiles", name];
}
