// Where a tool comes from, as one union. Its text form ("builtin", "authored", "las", "mcp:NAME")
// is what the catalog, the lock, the digests and the journal store: parsed and formatted only here.

export type Origin =
  | { readonly kind: "builtin" }
  | { readonly kind: "authored" }
  | { readonly kind: "las" }
  | { readonly kind: "mcp"; readonly server: string };

const MCP = "mcp:";

/** The origin a stored text names; a text no source writes reads as a built-in's (no server, no manifest). */
export function parseOrigin(text: string): Origin {
  if (text.startsWith(MCP)) return { kind: "mcp", server: text.slice(MCP.length) };
  if (text === "las" || text === "authored") return { kind: text };
  return { kind: "builtin" };
}

/** The stored text of an origin (the inverse of parseOrigin). */
export const formatOrigin = (o: Origin): string => (o.kind === "mcp" ? `${MCP}${o.server}` : o.kind);

const asOrigin = (o: Origin | string): Origin => (typeof o === "string" ? parseOrigin(o) : o);

/** The server behind a tool: "las" for Las, the MCP server's name, else none (built-ins, authored tools). */
export function serverOf(origin: Origin | string | null | undefined): string | undefined {
  if (origin === null || origin === undefined) return undefined;
  const o = asOrigin(origin);
  return o.kind === "mcp" ? o.server : o.kind === "las" ? "las" : undefined;
}

/**
 * The MCP server of the config's mcpServers behind a tool (never Las): what `--allow-local-paths` and `--expose`
 * name.
 */
export function mcpServerOf(origin: Origin | string | null | undefined): string | undefined {
  if (origin === null || origin === undefined) return undefined;
  const o = asOrigin(origin);
  return o.kind === "mcp" ? o.server : undefined;
}

/** Whether the origin is this kind. */
export const isOrigin = (origin: Origin | string, kind: Origin["kind"]): boolean => asOrigin(origin).kind === kind;
