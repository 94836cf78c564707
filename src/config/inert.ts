// Config keys the schema accepts (documented section names) but whose feature this
// version does not have yet. A file that sets one is refused at boot naming the key, instead of
// booting as if the feature were there (`rails.require: true` used to boot and exit 0). Pure.

export interface InertKey {
  /** The key path in the file. */
  readonly path: readonly string[];
  /** What is missing, for the message. */
  readonly missing: string;
}

/** Each section: the predicate on its value that sets something the missing feature would read. */
// Empty since delegation landed (the last one): kept for the next section whose feature lags.
const INERT: readonly { section: string; sets: (v: Record<string, unknown>) => string | undefined; missing: string }[] =
  [];

/** The first key the file sets for a feature that does not exist yet, or null. */
export function findInertKey(data: Readonly<Record<string, unknown>>): InertKey | null {
  for (const { section, sets, missing } of INERT) {
    const v = data[section];
    if (v === null || typeof v !== "object" || Array.isArray(v)) continue;
    const key = sets(v as Record<string, unknown>);
    if (key !== undefined) return { path: [section, key], missing };
  }
  return null;
}
