// How relayed resources and prompts look to a client: a prompt takes its server's prefix as a tool
// does (`SERVER__prompt`, none with --expose); a resource URI stays as its server gave it while it
// is unique across the relayed servers, and is namespaced deterministically and reversibly when
// two servers list the same one; merged lists are paged here; log levels are compared. Pure.
import { serverPrefix } from "../catalog/names.ts";

const NAMESPACE = "toolgate://resource/";

/** A resource URI namespaced to one server (used only when two servers list the same URI). */
export const namespacedUri = (server: string, uri: string): string =>
  `${NAMESPACE}${encodeURIComponent(server)}/${encodeURIComponent(uri)}`;

/** The server and URI behind a namespaced URI, or null for any other URI. */
export function parseNamespaced(served: string): { server: string; uri: string } | null {
  if (!served.startsWith(NAMESPACE)) return null;
  const rest = served.slice(NAMESPACE.length);
  const slash = rest.indexOf("/");
  if (slash <= 0) return null;
  try {
    return { server: decodeURIComponent(rest.slice(0, slash)), uri: decodeURIComponent(rest.slice(slash + 1)) };
  } catch {
    return null;
  }
}

/** The served name of a server's prompt. */
export const servedPrompt = (server: string, name: string, exposed: boolean): string =>
  exposed ? name : `${serverPrefix(server)}__${name}`;

/** The server and prompt name behind a served prompt name (the longest matching prefix), or null. */
export function promptOwner(
  served: string,
  servers: readonly string[],
  exposed: boolean,
): { server: string; name: string } | null {
  if (exposed) return servers.length === 1 ? { server: servers[0]!, name: served } : null;
  const owners = servers
    .filter((s) => served.startsWith(`${serverPrefix(s)}__`))
    .sort((a, b) => serverPrefix(b).length - serverPrefix(a).length);
  const server = owners[0];
  return server === undefined ? null : { server, name: served.slice(serverPrefix(server).length + 2) };
}

/** Whether a URI is one of an RFC 6570 template's expansions (simple `{var}` expressions, one segment each). */
export function matchesTemplate(template: string, uri: string): boolean {
  const parts = template.split(/\{[^}]*\}/);
  const pattern = parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[^/]+");
  return new RegExp(`^${pattern}$`).test(uri);
}

/** Served URIs for what each server listed: unchanged when unique, namespaced where two servers share one. */
export function servedUris(
  listed: ReadonlyMap<string, readonly string[]>,
): Map<string, { server: string; uri: string }> {
  const owners = new Map<string, string[]>();
  for (const [server, uris] of listed) for (const u of uris) owners.set(u, [...(owners.get(u) ?? []), server]);
  const out = new Map<string, { server: string; uri: string }>();
  for (const [server, uris] of listed) {
    for (const uri of uris) out.set(owners.get(uri)!.length > 1 ? namespacedUri(server, uri) : uri, { server, uri });
  }
  return out;
}

const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
const PAGE = 100;

/** A relayed answer (relay.ts's Relayed). */
type Answer = { ok: true; result: Record<string, unknown> } | { ok: false; code: number; message: string };

/** Whether a client that set `level` takes a message at `params.level`. */
export const admits = (level: string, at: unknown): boolean =>
  LEVELS.indexOf(typeof at === "string" ? at : "info") >= LEVELS.indexOf(level);

export const unknownResource = (uri: string): Answer => ({
  ok: false,
  code: -32002,
  message: `no resource ${JSON.stringify(uri)}; resources/list and resources/templates/list list them`,
});

/** One page of a merged list; the cursor is the offset. */
export function page(items: unknown[], key: string, cursor: unknown): Answer {
  const start = typeof cursor === "string" && /^\d+$/.test(cursor) ? Number(cursor) : 0;
  const next = start + PAGE < items.length ? String(start + PAGE) : undefined;
  return { ok: true, result: { [key]: items.slice(start, start + PAGE), ...(next ? { nextCursor: next } : {}) } };
}
