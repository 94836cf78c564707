// One relayed method on one upstream server as the pipeline runs it (relay.ts): a catalog entry of
// its own (effect read, no approval, the server's start needs, its output judged as the server's),
// whose run sends the request on the server's connection with the asking client's peer, and the
// envelope it ends in, turned back into a JSON-RPC answer.
import type { Entry } from "../catalog/catalog.ts";
import { toolDigest } from "../catalog/catalog.ts";
import type { Connection, Declared } from "../mcp/connect.ts";
import type { Peer } from "../mcp/peer.ts";
import { refuse, type Outcome } from "../result/result.ts";
import type { Invoked } from "../runtime/invoke.ts";
import { executableOf } from "../servers/digest.ts";
import type { RemoteSpec } from "../servers/specs.ts";
import type { Check, Need } from "../permission/types.ts";
import type { ServerStatus } from "../servers/list.ts";

/** What the relay needs of the remote sources (RemoteSources is one). */
export interface RelaySources {
  readonly status: readonly ServerStatus[];
  spec(name: string): RemoteSpec | undefined;
  /** `declared`: a connection declaring what the asking client declared (serve --expose). */
  connection(spec: RemoteSpec, declared?: Declared): Promise<Connection>;
  checkStart(spec: RemoteSpec, need: Need): Check | Promise<Check>;
  secretsOf(spec: RemoteSpec): string[];
}

/** A relayed request's answer: the server's own result, or a JSON-RPC error (its code when the server gave one). */
export type Relayed =
  | { ok: true; result: Record<string, unknown> }
  | { ok: false; code: number; message: string; data?: Record<string, unknown> };

/** The entry of `method` on `spec`'s server; `wire` sees each connection a request goes out on. */
export function relayEntry(
  spec: RemoteSpec,
  method: string,
  sources: RelaySources,
  wire: (spec: RemoteSpec, conn: Connection) => void,
): Entry {
  const schema = { type: "object" };
  return {
    name: method,
    rawName: method,
    origin: spec.origin,
    description: `${method} relayed to MCP server "${spec.name}"`,
    effect: "read",
    approval: "never",
    digest: toolDigest({
      origin: spec.origin,
      name: method,
      schema,
      effect: "read",
      description: "",
      executable: executableOf(spec),
    }),
    inputSchema: schema,
    // The fast schema check; its output is judged as a remote source's (local paths and all).
    terms: {
      validation: { kind: "generated", explain: null },
      settle: { by: "start", check: (need) => sources.checkStart(spec, need) },
      // A read may be an MCP App's interface (ui://, text/html): held to the transport's bound, not 64 KiB.
      boundary: {
        localPaths: spec.localPathsOff ? { rule: "lifted", by: spec.localPathsOff } : { rule: "on" },
        apps: method === "resources/read",
      },
      secrets: sources.secretsOf(spec),
      audit: null,
      time: { kind: "own", deadlineMs: spec.timeoutMs + 2_000, limit: null },
      acts: "here",
    },
    adapter: {
      needs: () => ({ ok: true, value: [...spec.needs] }),
      run: (args, ctx) =>
        request(spec, method, args as Record<string, unknown>, {
          sources,
          wire,
          signal: ctx.signal,
          peer: ctx.peer?.({ tool: method, server: spec.name }),
        }),
    },
  };
}

async function request(
  spec: RemoteSpec,
  method: string,
  params: Record<string, unknown>,
  o: {
    sources: RelaySources;
    wire: (spec: RemoteSpec, conn: Connection) => void;
    signal: AbortSignal;
    peer: Peer | undefined;
  },
): Promise<Outcome<unknown>> {
  let conn: Connection;
  try {
    conn = await o.sources.connection(spec, o.peer?.upstream);
  } catch (e) {
    return refuse("mcp.server_down", `MCP server "${spec.name}" cannot be reached: ${(e as Error).message}`);
  }
  o.wire(spec, conn);
  const r = await conn.session.request(method, params, {
    timeoutMs: spec.timeoutMs,
    signal: o.signal,
    ...(o.peer ? { peer: o.peer } : {}),
  });
  if (r.ok) return { ok: true, value: r.result };
  if (r.kind === "protocol") return refuse("mcp.error", r.message, { code: r.code });
  if (r.kind === "malformed")
    return refuse(
      "mcp.malformed_result",
      `${method} to MCP server "${spec.name}": the answer is not a ${method} result (${r.message})`,
    );
  const code = (
    {
      too_large: "mcp.response_too_large",
      deadline: "deadline",
      cancelled: "cancelled",
      transport: "transport_lost",
    } as const
  )[r.kind];
  return refuse(code, `${method} to MCP server "${spec.name}": ${r.message}`);
}

/**
 * A relayed request's envelope as its answer: the server's own result, or a JSON-RPC error (its code when the server
 * gave one).
 */
export function relayedOf({ envelope }: Invoked): Relayed {
  if (envelope.status === "success") return { ok: true, result: envelope.payload as Record<string, unknown> };
  const details = (envelope as { details?: { code?: unknown } }).details;
  const upstream = envelope.error_code === "mcp.error" && typeof details?.code === "number" ? details.code : undefined;
  const message =
    "message" in envelope && typeof envelope.message === "string"
      ? envelope.message
      : envelope.error_code === "sensitive_output_rejected"
        ? "the server's answer was withheld by the output boundary; `toolgate log` says which rule fired, " +
          "never the value"
        : envelope.error_code;
  return {
    ok: false,
    code: upstream ?? -32603,
    message: upstream !== undefined ? message : `${envelope.error_code}: ${message}`,
    data: { error_code: envelope.error_code },
  };
}
