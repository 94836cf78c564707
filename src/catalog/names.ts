// Names as servers write them, mapped to names toolgate and MCP clients take: MCP
// allows dots, slashes and up to 128 characters in a tool name, other clients' configs name
// servers `github.com/owner/repo` or with spaces. A name that fits a budget and
// ^[A-Za-z0-9_-]+$ stays; any other becomes a readable stem plus a digest of the whole name.
// Deterministic (no clock, no random), never two-to-one. Pure. The catalog maps server and tool
// names here; `serve` maps catalog names to a client's budget with the same code (serve/names.ts).
import { sha256Hex } from "../result/sha256.ts";

/** The characters every MCP client takes in a tool name. */
export const LEGAL_NAME = /^[A-Za-z0-9_-]+$/;
/** Clients and the catalog treat these as one name (lowercase, `-` → `_`: docs/mcp.md). */
export const normalName = (n: string): string => n.toLowerCase().replaceAll("-", "_");
/** The longest server prefix: `<prefix>__<tool>` leaves a tool most of the 128. */
export const SERVER_PREFIX_BUDGET = 40;
/** MCP's own limit for a tool name, and the catalog's (catalog.ts NAME_RULE). */
export const CATALOG_NAME_BUDGET = 128;

const fits = (name: string, budget: number) => name.length > 0 && name.length <= budget && LEGAL_NAME.test(name);

/**
 * `stem_<digest>`: the name's legal characters (runs of others become `_`) cut to fit, then 8 hex
 * of sha256(name), more on a clash with `taken` (normalized names). Every candidate ends in `_` +
 * a suffix without `_` or `-`, so candidates with different suffixes differ even after
 * normalization; the counted fallback has more candidates than there are taken names.
 */
export function mappedName(name: string, budget: number, taken: ReadonlySet<string> = new Set()): string {
  const stem = name.replace(/[^A-Za-z0-9_-]+/g, "_");
  const hex = sha256Hex(name);
  const withSuffix = (suffix: string) =>
    `${stem.slice(0, Math.max(0, budget - 1 - suffix.length)).replace(/[_-]+$/, "")}_${suffix}`;
  for (const len of [8, 12, 16]) {
    if (len + 2 > budget) break;
    const c = withSuffix(hex.slice(0, len));
    if (!taken.has(normalName(c))) return c;
  }
  for (let i = 0; i <= taken.size; i++) {
    const c = withSuffix(`${hex.slice(0, 8)}x${i.toString(36)}`);
    if (!taken.has(normalName(c))) return c;
  }
  throw new Error(`no free name for ${JSON.stringify(name)}`); // unreachable: more candidates than taken names
}

/**
 * A whole set of names mapped at once: names that fit keep themselves and their place first (so
 * no mapped name can take it), the rest are mapped in sorted order, so the same set always gives
 * the same mapping, and no two names share one (after normalization).
 */
export function mapNames(names: readonly string[], budget: number): Map<string, string> {
  const out = new Map<string, string>();
  const taken = new Set<string>();
  for (const n of names) {
    if (!fits(n, budget) || out.has(n)) continue;
    out.set(n, n);
    taken.add(normalName(n));
  }
  const rest = [...new Set(names.filter((n) => !fits(n, budget)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const n of rest) {
    const m = mappedName(n, budget, taken);
    out.set(n, m);
    taken.add(normalName(m));
  }
  return out;
}

/** The prefix a server's tools get: its config name when it fits 40 legal characters, else mapped. */
export const serverPrefix = (server: string): string =>
  fits(server, SERVER_PREFIX_BUDGET) ? server : mappedName(server, SERVER_PREFIX_BUDGET);

/**
 * A server's tool in the catalog: `<prefix>__<tool>`, the tool's part mapped when the whole would
 * not fit the catalog's rule, so every name of a server starts with its prefix (a cold call
 * starts only that server). Each name alone (the supervisor and a one-server call agree with
 * `tools`); two tools whose mapped names met would fail the catalog's collision check, not merge.
 */
export function remoteToolName(server: string, tool: string): string {
  const prefix = `${serverPrefix(server)}__`;
  const composed = prefix + tool;
  return fits(composed, CATALOG_NAME_BUDGET)
    ? composed
    : prefix + mappedName(tool, CATALOG_NAME_BUDGET - prefix.length);
}
