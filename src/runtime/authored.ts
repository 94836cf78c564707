// Authored tools at boot (trust covers what the repository runs): their manifests are read
// once, only when their folder exists; their digests feed the trust check (TOOLGATE_TRUST may pin
// them) and `toolgate trust` (which records them); a manifest's own "approval": "never" holds
// only when the trust covers that manifest as it is now.
import { existsSync } from "node:fs";
import type { Manifest } from "../catalog/authored-manifest.ts";
import type { ToolSource } from "../catalog/catalog.ts";
import type { Effective } from "../config/resolve.ts";
import { BASE_ENV, isExecutionControl } from "../launcher/env.ts";
import { parseNet } from "../permission/net.ts";
import type { PermKind } from "../permission/types.ts";
import { bootError, type Outcome } from "../result/result.ts";
import type { TrustVerdict } from "../trust/gate.ts";

export interface AuthoredLoader {
  /** The manifests, read on first use (sync: the trust check may need their digests). */
  readonly load: () => Outcome<Manifest[]>;
  /** name → manifest digest, or null when a manifest is invalid (the boot then fails on it). */
  readonly digests: () => Record<string, string> | null;
}

/** A declared need's value checked at load: a reserved variable or a malformed host is a bad manifest. */
function checkNeed(kind: PermKind, v: string): string | null {
  if (kind === "net") return parseNet(v) === null ? "is not a host or host:port" : null;
  if (kind !== "env") return null;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) return "is not an environment variable name";
  if (v in BASE_ENV || isExecutionControl(v))
    return "is fixed by the launcher or changes what a child executes; it cannot be passed to a tool";
  return null;
}

/** The loader for the config's authored-tools folder; null without one (start-up then pays a stat, no import). */
export async function authoredLoader(config: Effective): Promise<AuthoredLoader | null> {
  const dir = config.values.authored?.dir as string | undefined;
  if (dir === undefined || !existsSync(dir)) return null;
  const { loadManifests } = await import("../catalog/authored-manifest.ts");
  let memo: Outcome<Manifest[]> | undefined;
  const load = () =>
    (memo ??= loadManifests(dir, { workspace: config.values.workspace as string, pathEnv: BASE_ENV.PATH!, checkNeed }));
  return {
    load,
    digests: () => {
      const r = load();
      return r.ok ? Object.fromEntries(r.value.map((m) => [m.name, m.digest])) : null;
    },
  };
}

/** The manifests, or the boot failure naming the first invalid one. */
export function manifestsOrFail(loader: AuthoredLoader): Manifest[] {
  const r = loader.load();
  if (!r.ok) throw bootError(r.refusal.message, (r.refusal.details as { hint?: string } | undefined)?.hint);
  return r.value;
}

/** The authored tools as sources; a manifest's own "never" holds only where the trust covers it. */
export async function authoredTools(
  loader: AuthoredLoader | null,
  others: readonly ToolSource[],
  parentEnv: Readonly<Record<string, string | undefined>>,
  trust: TrustVerdict,
): Promise<ToolSource[]> {
  if (loader === null) return [];
  const manifests = manifestsOrFail(loader);
  const { authoredSources } = await import("../catalog/authored.ts");
  const r = authoredSources(
    manifests,
    others,
    (m) => (trust.trustedBy === null ? "untrusted" : trust.covers(m.name, m.digest) ? "honoured" : "changed"),
    parentEnv,
  );
  if (!r.ok) throw bootError(r.refusal.message, (r.refusal.details as { hint?: string } | undefined)?.hint);
  return r.value;
}
