// The catalog cache of remote sources: what each server listed (or why it failed), in the state
// folder, keyed by the declarations' fingerprint so a changed declaration is listed again.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { canonicalJson, sha256Hex } from "../catalog/canonical.ts";
import type { ListedTool, ServerInfo } from "../mcp/session.ts";
import { makeStateFolder } from "../state/folder.ts";
import { randomName } from "../fs/state-folder.ts";
import type { RemoteSpec } from "./specs.ts";

export const CACHE_NAME = "catalog-cache.json";

export interface CacheFile {
  readonly fingerprint: string;
  readonly servers: Record<
    string,
    { ok: true; tools: ListedTool[]; at: number; server?: ServerInfo } | { ok: false; error: string; at: number }
  >;
}

/** The declarations' fingerprint: everything that decides what a server lists (secret values excluded). */
export function fingerprint(specs: readonly RemoteSpec[], version: string): string {
  return sha256Hex(
    canonicalJson({
      version,
      specs: specs.map((s) => ({
        ...s,
        transport: {
          ...s.transport,
          secrets: Object.keys(s.transport.secrets).sort(),
          ...(s.transport.kind === "stdio" && s.transport.bound
            ? { bound: Object.keys(s.transport.bound).sort() }
            : {}),
        },
      })),
    }),
  );
}

/** Writes what this boot listed (a server listed from the cache keeps its entry as it was); best effort, atomic. */
export function saveCache(
  path: string,
  specs: readonly RemoteSpec[],
  at: number,
  fp: string,
  cache: CacheFile | null,
  listed: Map<string, { tools: readonly ListedTool[]; cached: boolean; server?: ServerInfo }>,
  errors: Map<string, { error: string; cached: boolean; remembered: boolean }>,
): void {
  const servers: CacheFile["servers"] = {};
  for (const s of specs) {
    const l = listed.get(s.name);
    const e = errors.get(s.name);
    if (l)
      servers[s.name] =
        l.cached && cache?.servers[s.name]
          ? cache.servers[s.name]!
          : { ok: true, tools: [...l.tools], at, ...(l.server ? { server: l.server } : {}) };
    else if (e?.remembered)
      servers[s.name] = e.cached && cache?.servers[s.name] ? cache.servers[s.name]! : { ok: false, error: e.error, at };
  }
  try {
    makeStateFolder(dirname(path));
    // A new file under a random name ("wx": never an existing file, never through a link), then renamed.
    const tmp = `${path}.${randomName()}.tmp`;
    writeFileSync(tmp, JSON.stringify({ fingerprint: fp, servers } satisfies CacheFile), { mode: 0o600, flag: "wx" });
    renameSync(tmp, path);
  } catch {
    // A cache that cannot be written only costs a respawn next time.
  }
}

/** The cache when it was written for these declarations; null otherwise (or when unreadable). */
export function readCache(path: string, fp: string): CacheFile | null {
  try {
    const c = JSON.parse(readFileSync(path, "utf8")) as CacheFile;
    return c && c.fingerprint === fp && typeof c.servers === "object" ? c : null;
  } catch {
    return null;
  }
}
