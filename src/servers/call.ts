// A remote tool as a catalog source: its adapter needs the connect permission, starts only its
// own server, checks the live descriptor still matches the listed one, and maps the outcome:
// isError, or a JSON-RPC error the server sent (whatever its code) → remote_tool; the connection
// lost mid-call, no answer within toolgate's own deadline, or the call cut by its caller → indeterminate. Under
// supervision (src/servers/supervisor.ts) what the supervisor refuses now is refused first.
import type { ToolSource } from "../catalog/catalog.ts";
import type { Terms } from "../catalog/terms.ts";
import type { Connection, Declared } from "../mcp/connect.ts";
import type { ListedTool } from "../mcp/session.ts";
import type { Peer } from "../mcp/peer.ts";
import type { ToolContext } from "../catalog/declare.ts";
import type { Check, Need } from "../permission/types.ts";
import type { Outcome, Refusal } from "../result/result.ts";
import { executableOf, liveDigest } from "./digest.ts";
import { catalogNameOf, serverWho, type RemoteSpec } from "./specs.ts";

const MESSAGE_CHARS = 1_000;

/** What a remote tool's adapter needs of the remote sources (RemoteSources, in sources.ts, is one). */
export interface RemoteCalls {
  /** `declared`: a connection declaring what the caller's client declared (serve --expose). */
  connection(spec: RemoteSpec, declared?: Declared): Promise<Connection>;
  /** Whether `conn` declares what one kind of client declared: its listing is what that client may use. */
  declares(conn: Connection): boolean;
  refusedNow(name: string): Refusal | undefined;
  secretsOf(spec: RemoteSpec): string[];
  authRefusal(spec: RemoteSpec): Refusal | undefined;
  clearAuthNeed(spec: RemoteSpec): void;
  isFresh(name: string): boolean;
  checkStart(spec: RemoteSpec, need: Need): Check | Promise<Check>;
}

/**
 * What a server's tool (MCP or Las) needs from the pipeline: the complete validator, its needs
 * settled by the server's start check (shared with the connect: one call, one prompt), the
 * local-path rule unless the user lifted it for this server, its bound secrets (live: OAuth tokens
 * join them once read or saved, before the views use them), its request timeout (the longest
 * `--timeout`, which the request then uses).
 */
export function serverTerms(spec: RemoteSpec, remote: Pick<RemoteCalls, "secretsOf" | "checkStart">): Terms {
  return {
    validation: { kind: "external", defaults: false },
    settle: { by: "start", check: (need) => remote.checkStart(spec, need) },
    boundary: {
      localPaths: spec.localPathsOff ? { rule: "lifted", by: spec.localPathsOff } : { rule: "on" },
      apps: false,
    },
    secrets: remote.secretsOf(spec),
    audit: null,
    time: {
      kind: "own",
      deadlineMs: spec.timeoutMs + 2_000,
      limit: () => ({
        secs: spec.timeoutMs / 1000,
        setBy: spec.kind === "las" ? "las.timeout_secs" : `mcpServers.${spec.name}.timeout_secs`,
      }),
    },
    acts: "outside",
  };
}

export function remoteToolSource(spec: RemoteSpec, tool: ListedTool, remote: RemoteCalls): ToolSource {
  const name = catalogNameOf(spec, tool.name);
  return {
    origin: spec.origin,
    rawName: tool.name,
    name,
    // A mapped name is shown beside the name the server wrote (the origin names the server).
    ...(spec.kind === "mcp" && name !== `${spec.name}__${tool.name}` ? { original: tool.name } : {}),
    description: tool.description ?? "",
    inputSchema: tool.inputSchema,
    effect: undefined,
    approval: "required",
    executable: executableOf(spec),
    terms: serverTerms(spec, remote),
    adapter: {
      needs: () => ({ ok: true, value: [...spec.needs] }),
      run: (args, ctx) =>
        callRemote(
          spec,
          tool,
          remote,
          args,
          ctx.signal,
          peerFor(spec, name, ctx),
          traceMeta(ctx),
          undefined,
          timeoutOf(spec, ctx),
        ),
      // The server starts (its row, then the spawn) while the call's own row is written; the run
      // waits for that same start. Not when the call is refused anyway (a supervised server down).
      begin: () => {
        if (remote.refusedNow(name)) return undefined;
        const early = remote.connection(spec);
        early.catch(() => {}); // the run reports it (a failed started row means no run: shutdown closes it)
        return (args, ctx) => {
          // A terminal's status line says what the wait is: the server starting, then its answer.
          let up = false;
          early.then(
            () => ((up = true), ctx.activity?.("waiting for its answer")),
            () => {},
          );
          if (!up) ctx.activity?.(startingText(spec));
          return callRemote(
            spec,
            tool,
            remote,
            args,
            ctx.signal,
            peerFor(spec, name, ctx),
            traceMeta(ctx),
            early,
            timeoutOf(spec, ctx),
          );
        };
      },
    },
  };
}

/**
 * `starting server docs (npx)…`, `connecting to server docs (mcp.example.com)…`: the program's name or the host,
 * never a path or a query.
 */
function startingText(spec: RemoteSpec): string {
  const t = spec.transport;
  if (t.kind === "stdio") return `starting server ${spec.name} (${t.argv[0]!.split("/").pop()})…`;
  let host = "";
  try {
    host = new URL(t.url).host;
  } catch {
    // a template not yet filled: no host to show
  }
  return `connecting to server ${spec.name}${host ? ` (${host})` : ""}…`;
}

/** The request's timeout: the server's, or the caller's --timeout when one was given (at most the server's). */
const timeoutOf = (spec: RemoteSpec, ctx: ToolContext): number =>
  Math.min(spec.timeoutMs, (ctx.timeoutSecs ?? Number.POSITIVE_INFINITY) * 1000);

const PAST = { accept: "accepted", decline: "declined", cancel: "cancelled" } as const;

/**
 * The caller's peer for this call (none: the server's elicitations are declined, its sampling
 * refused), with how its elicitations ended recorded in the call's journal row, never the values.
 */
function peerFor(spec: RemoteSpec, tool: string, ctx: ToolContext): Peer {
  const base = ctx.peer?.({ tool, server: spec.name }) ?? {};
  const seen: string[] = [];
  return {
    ...base,
    elicited: (outcome, why) => {
      seen.push(PAST[outcome]);
      ctx.record?.({ elicited: seen.join(",") });
      if (base.elicited) base.elicited(outcome, why);
      else
        ctx.operator?.(
          `MCP server "${spec.name}" asked for input during ${tool} (elicitation); declined: ` +
            `${why ?? "nobody can be asked for this call"}`,
        );
    },
  };
}

/**
 * The call's trace context as MCP carries it (`params._meta`; over HTTP also as the traceparent header), when
 * telemetry is on.
 */
function traceMeta(ctx: ToolContext): Record<string, string> | undefined {
  const t = ctx.trace?.();
  return t ? { traceparent: t.traceparent, ...(t.tracestate ? { tracestate: t.tracestate } : {}) } : undefined;
}

async function callRemote(
  spec: RemoteSpec,
  tool: ListedTool,
  remote: RemoteCalls,
  args: unknown,
  signal: AbortSignal,
  peer: Peer,
  meta?: Record<string, string>,
  early?: Promise<Connection>,
  timeoutMs = spec.timeoutMs,
): Promise<Outcome<unknown>> {
  // Supervised (serve): a server down or restarting, or a descriptor changed at a restart, refuses here too.
  const now = remote.refusedNow(catalogNameOf(spec, tool.name));
  if (now) return { ok: false, refusal: now };
  let conn: Connection;
  try {
    // A client's own kind of connection when it is to be told exactly what that client declared (serve --expose).
    conn = await (peer.upstream ? remote.connection(spec, peer.upstream) : (early ?? remote.connection(spec)));
  } catch (e) {
    const auth = remote.authRefusal(spec);
    if (auth) return { ok: false, refusal: auth };
    return {
      ok: false,
      refusal: { code: "mcp.connect_failed", message: `cannot reach ${serverWho(spec)}: ${(e as Error).message}` },
    };
  }
  const live = conn.tools.find((t) => t.name === tool.name);
  // A connection of one kind of client lists what that client may use: a tool it does not list
  // (a sampling tool, for a client without sampling) is the server's to refuse, as it would directly.
  if (remote.declares(conn) ? live !== undefined : remote.isFresh(spec.name)) {
    if (!live || liveDigest(spec, live) !== liveDigest(spec, tool)) {
      return {
        ok: false,
        refusal: {
          code: "descriptor_changed",
          message:
            `${tool.name} from ${spec.origin} ${live ? "changed its descriptor" : "is no longer listed"} ` +
            `since the catalog was cached; review it with \`toolgate tools --refresh\``,
        },
      };
    }
  }
  remote.clearAuthNeed(spec);
  if (signal.aborted)
    return {
      ok: false,
      refusal: {
        code: "mcp.cancelled",
        message: `${tool.name} was cancelled before it was sent to ${serverWho(spec)}`,
      },
    };
  const r = await conn.session.callTool(tool.name, args, { timeoutMs, signal, peer, ...(meta ? { meta } : {}) });
  // Refused by the server's authorization (401, or 403 for a wider scope) before it acted: not indeterminate.
  const auth = r.ok ? undefined : remote.authRefusal(spec);
  if (auth) return { ok: false, refusal: auth };
  if (r.ok) {
    if (r.result.isError === true) {
      return {
        ok: false,
        refusal: {
          code: "remote_tool",
          message: textOf(r.result) || `${tool.name} answered with an error`,
          details: r.result,
          raw: r.result,
        },
      };
    }
    return { ok: true, value: r.result };
  }
  // The server's error answer (-32000 and -32001 too: codes a server may use, not a lost connection or a timer).
  if (r.kind === "protocol")
    return { ok: false, refusal: { code: "remote_tool", message: r.message.slice(0, MESSAGE_CHARS) } };
  const unknown = "the remote effect is unknown and the call is not replayed";
  // It answered, but not with a tools/call result: whether it acted is unknown, as for a lost connection.
  if (r.kind === "malformed") {
    return {
      ok: false,
      refusal: {
        code: "mcp.malformed_result",
        indeterminate: true,
        message:
          `${tool.name}: ${serverWho(spec)} answered with something that is not a tools/call result ` +
          `(${r.message}); ${unknown}`,
      },
    };
  }
  // It answered, and the answer was too large to read: failed like a result over the output boundary's size, not
  // indeterminate.
  if (r.kind === "too_large") {
    return {
      ok: false,
      refusal: {
        code: "mcp.response_too_large",
        message: `${tool.name}: ${serverWho(spec)}: ${r.message} (a result passes the output boundary only up to 64 KiB)`,
      },
    };
  }
  if (r.kind === "deadline")
    return {
      ok: false,
      refusal: {
        code: "deadline",
        indeterminate: true,
        message: `${tool.name}: no answer within ${timeoutMs / 1000} s; ${unknown}`,
      },
    };
  // Cut by the caller (Ctrl-C, a client's cancel) after the request was sent: the server may have acted.
  if (r.kind === "cancelled") {
    return {
      ok: false,
      refusal: {
        code: "interrupted",
        indeterminate: true,
        message:
          `${tool.name}: the call was cut before ${serverWho(spec)} answered; it may have acted on ` +
          `it, so ${unknown}`,
      },
    };
  }
  // Lost mid-call: say how the server ended (its exit status), and give the operator its stderr.
  const who = serverWho(spec);
  const how = signal.aborted ? undefined : await whyLost(conn.lost);
  const tail = conn.child?.stderrTail().trim().slice(-STDERR_CHARS) ?? "";
  return {
    ok: false,
    refusal: {
      code: "transport_lost",
      indeterminate: true,
      message: `${tool.name}: the connection failed mid-call${how ? ` (${who} ${how})` : ""}; ${unknown}`,
      ...(tail ? { operator: `${who}'s stderr ends with: ${tail}` } : {}),
    },
  };
}

const STDERR_CHARS = 1_000;

/**
 * How the connection ended ("exited with status 3"), if it says so soon: stdout closes a moment before the exit is
 * reaped.
 */
async function whyLost(lost: Promise<string> | undefined): Promise<string | undefined> {
  if (!lost) return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((res) => (timer = setTimeout(() => res(undefined), 1_000)));
  return Promise.race([lost, late]).finally(() => clearTimeout(timer));
}

function textOf(result: Record<string, unknown>): string {
  const content = Array.isArray(result.content) ? result.content : [];
  return content
    .filter((c): c is { type: "text"; text: string } => c?.type === "text" && typeof c.text === "string")
    .map((c) => c.text)
    .join("\n")
    .slice(0, MESSAGE_CHARS);
}
