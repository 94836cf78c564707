// Listing the remote sources for a boot: the catalog cache first (keyed by the declarations'
// fingerprint), then discovery of only the servers this boot may start, then each server's status
// and its tools as catalog sources. A required server that failed is the boot's refusal.
import type { ToolSource } from "../catalog/catalog.ts";
import { discover, filterTools, NEGATIVE_TTL_MS, type Failure } from "../mcp/discovery.ts";
import type { Connection } from "../mcp/connect.ts";
import type { ListedTool, ServerInfo } from "../mcp/session.ts";
import type { Refusal } from "../result/result.ts";
import { fingerprint, readCache, saveCache } from "./cache.ts";
import type { WithheldTool } from "./declared.ts";
import { catalogNameOf, type RemoteSpec } from "./specs.ts";
import { basename } from "node:path";
import { mcpServerOf } from "../catalog/origin.ts";

export interface ServerStatus {
  readonly name: string;
  readonly origin: string;
  readonly ok: boolean;
  readonly tools: number;
  readonly error?: string;
  /** Listed from the cache (no process was started for it this time). */
  readonly cached: boolean;
  /** Why its tools are kept out of the catalog (a bad or colliding name), when they are. */
  readonly withheld?: string;
  /** Its tools the output boundary kept out of the catalog (what they declare broke a rule). */
  readonly withheldTools?: readonly WithheldTool[];
  /** Why it was not started: a grant it needs was refused (the refusal names the flag). */
  readonly refused?: Refusal;
  /** What it declared at initialize (capabilities, instructions), when known: serve relays it. */
  readonly server?: ServerInfo;
}

export interface ListInput {
  readonly specs: readonly RemoteSpec[];
  readonly cachePath: string;
  readonly now: () => number;
  readonly refresh: boolean;
  readonly version: string;
  /** Which servers may be started to list them when the cache has nothing (default: all). */
  readonly discover?: (spec: RemoteSpec) => boolean;
  /** The one tool whose descriptor the output boundary checks (a call's); undefined: every tool's. */
  readonly checkOnly?: string;
  readonly connect: (spec: RemoteSpec) => Promise<Connection>;
  readonly source: (spec: RemoteSpec, tool: ListedTool) => ToolSource;
}

export type Listing =
  | { ok: true; sources: ToolSource[]; status: ServerStatus[]; listed: Map<string, readonly ListedTool[]> }
  | { ok: false; refusal: Refusal; status: ServerStatus[] };

export async function listRemote(input: ListInput): Promise<Listing> {
  const { specs, now } = input;
  const fp = fingerprint(specs, input.version);
  const cache = input.refresh ? null : readCache(input.cachePath, fp);
  const listed = new Map<string, { tools: readonly ListedTool[]; cached: boolean; server?: ServerInfo }>();
  const failures = new Map<string, Failure>();
  const toDiscover: RemoteSpec[] = [];
  for (const s of specs) {
    const c = cache?.servers[s.name];
    if (c?.ok) listed.set(s.name, { tools: c.tools, cached: true, ...(c.server ? { server: c.server } : {}) });
    else if (input.discover?.(s) ?? true) {
      if (c && !c.ok && now() - c.at < NEGATIVE_TTL_MS) failures.set(s.name, { error: c.error, at: c.at });
      toDiscover.push(s);
    }
  }
  const errors = new Map<string, { error: string; cached: boolean; remembered: boolean }>();
  if (toDiscover.length > 0) {
    const found = await discover(
      toDiscover,
      (s) => input.connect(s).then((c) => ({ tools: c.tools, server: c.session.server, close: () => c.close(0) })),
      { now, failures, timedOut: (s) => connectTimeoutMessage(s as RemoteSpec) },
    );
    for (const d of found) {
      if (d.ok)
        listed.set(d.server, {
          tools: d.tools,
          cached: false,
          ...(d.connection.server ? { server: d.connection.server } : {}),
        });
      else errors.set(d.server, { error: d.error, cached: d.cached, remembered: d.remembered });
    }
    saveCache(input.cachePath, specs, now(), fp, cache, listed, errors);
  }
  const sources: ToolSource[] = [];
  const status: ServerStatus[] = [];
  const taken = new Map<string, readonly ListedTool[]>();
  // Loaded only when there is a descriptor to check (`tools` with no server never loads the boundary).
  let declared: typeof import("./declared.ts") | undefined;
  for (const s of specs) {
    const l = listed.get(s.name);
    const e = errors.get(s.name);
    if (!l && !e) continue; // not in the cache, and not this boot's to start
    if (!l) {
      status.push({ name: s.name, origin: s.origin, ok: false, tools: 0, error: e!.error, cached: e!.cached });
      if (s.required) {
        return {
          ok: false,
          status,
          refusal: {
            code: s.kind === "las" ? "las.boot" : "mcp.required",
            message: `${s.kind === "las" ? "Las" : `required MCP server "${s.name}"`} failed: ${e!.error}`,
          },
        };
      }
      continue;
    }
    // What a server declares is checked as its results are before anything shows it, from the cache
    // too (the verdict follows this boot's flags); a call shows nothing but the tool it runs.
    const listedTools = s.kind === "las" ? l.tools : filterTools(l.tools, s.include, s.exclude);
    const only = input.checkOnly;
    const check =
      only === undefined ? listedTools.length > 0 : listedTools.some((t) => catalogNameOf(s, t.name) === only);
    const { kept: tools, withheld } = check
      ? (declared ??= await import("./declared.ts")).checkListedTools(s, listedTools, only)
      : { kept: listedTools, withheld: [] };
    status.push({
      name: s.name,
      origin: s.origin,
      ok: true,
      tools: tools.length,
      cached: l.cached,
      ...(l.server ? { server: l.server } : {}),
      ...(withheld.length > 0 ? { withheldTools: withheld } : {}),
    });
    taken.set(s.name, tools);
    for (const t of tools) sources.push(input.source(s, t));
  }
  return { ok: true, sources, status, listed: taken };
}

/**
 * The operator's line for each tool the output boundary kept out of a server's listing: the rule
 * and where, never the value (nor the tool's name when that is what broke the rule).
 */
export function withheldToolNotes(status: readonly ServerStatus[]): string[] {
  return status.flatMap((st) =>
    (st.withheldTools ?? []).map((t) => {
      const which =
        t.tool !== undefined ? `tool ${JSON.stringify(t.tool)}` : `tool #${t.position} (its name is not shown)`;
      const fix =
        t.rule === "local_path" && mcpServerOf(st.origin) !== undefined
          ? `; if its descriptors rightly hold absolute paths, --allow-local-paths=${st.name} lets them through`
          : "";
      return (
        `${st.origin}: ${which} withheld: what it declares breaks the output boundary (rule ${t.rule} at ` +
        `${t.where}, the value is not shown)${fix}`
      );
    }),
  );
}

/** Package runners whose first start downloads (and may build) the package before the server answers. */
const RUNNERS = new Set(["npx", "bunx", "pnpx", "pnpm", "yarn", "uvx", "pipx"]);

/** A missed connect timeout, naming the key that sets it; for a package runner, why a first start may need longer. */
export function connectTimeoutMessage(spec: RemoteSpec): string {
  const secs = spec.connectTimeoutMs / 1000;
  if (spec.kind === "las")
    return `no answer within the connect timeout (${secs} s: las.timeout_secs, or SINGULARITY_MCP_TIMEOUT_SECS)`;
  const head = `no answer within the connect timeout (${secs} s); raise mcpServers.${spec.name}.connect_timeout_secs`;
  const program = spec.transport.kind === "stdio" ? basename(spec.transport.argv[0] ?? "") : "";
  if (!RUNNERS.has(program)) return head;
  return (
    `${head}: a first \`${program}\` start downloads (and may build) the package before the server answers and ` +
    `can need longer, e.g. "connect_timeout_secs": 120`
  );
}
