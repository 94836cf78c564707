// Connecting to an MCP server over Streamable HTTP (or the legacy HTTP+SSE transport). Every
// request goes through the HTTP adapter's policy fetch, every answer is read under the message
// bound (http-cap.ts), and the server's session is ended (DELETE, as the Python SDK does) when
// toolgate is done with it: by close(), or packed for the detached reaper with endLater().
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Connection, ConnectOptions, PolicyFetch, Target } from "./connection.ts";
import { cappedFetch, RELATED_MARK } from "./http-cap.ts";
import { openSession } from "./session.ts";

/** How long close() waits for the server to answer its DELETE (405, "not supported", is fine too). */
export const END_TIMEOUT_MS = 2_000;

export async function connectHttp(t: Extract<Target, { kind: "http" }>, opts: ConnectOptions): Promise<Connection> {
  const { StreamableHTTPClientTransport, StreamableHTTPError } = await import(
    "@modelcontextprotocol/sdk/client/streamableHttp.js"
  );
  const init = {
    requestInit: { headers: { ...t.headers } },
    fetch: traced(cappedFetch(t.fetch ?? globalThis.fetch)),
    ...(t.authProvider ? { authProvider: t.authProvider } : {}),
  };
  const transport = t.sse
    ? new (await import("@modelcontextprotocol/sdk/client/sse.js")).SSEClientTransport(new URL(t.url), init)
    : new StreamableHTTPClientTransport(new URL(t.url), init);
  // The server's session is gone (404, unreachable) or its end was handed over: nothing to DELETE.
  let ended = false;
  // No process to watch: the session is lost when the endpoint cannot be reached, or answers
  // 404 to the session id (the server restarted). The SDK chains this before its own handler.
  let markLost!: (why: string) => void;
  // Resolved on the next turn: the request that failed settles with its own error first (a
  // supervisor closing the session at once would turn a 404's plain failure into "connection closed").
  const lost = new Promise<string>((res) => (markLost = (why) => void ((ended = true), setTimeout(() => res(why), 0))));
  transport.onerror = (e) => {
    if (e instanceof StreamableHTTPError) {
      if (e.code === 404) markLost("no longer knows this session (HTTP 404)");
    } else if (e instanceof TypeError || typeof (e as { code?: unknown }).code === "string") {
      markLost(`cannot be reached (${e.message.slice(0, 200)})`);
    }
  };
  const session = await openSession(transport, {
    pin: opts.pin,
    connectTimeoutMs: opts.connectTimeoutMs,
    version: opts.version,
    relatedMark: RELATED_MARK,
    ...(opts.sampling ? { sampling: true } : {}),
    ...(opts.elicitation === false ? { elicitation: false } : {}),
  });
  const streamable = transport instanceof StreamableHTTPClientTransport ? transport : undefined;
  const close = async () => {
    if (!ended && streamable?.sessionId !== undefined) {
      ended = true;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((res) => (timer = setTimeout(res, END_TIMEOUT_MS)));
      // A server that does not answer in time is left to its own session timeout; close() aborts the request.
      await Promise.race([streamable.terminateSession().catch(() => {}), late]).finally(() => clearTimeout(timer));
    }
    await session.close().catch(() => {});
  };
  const endLater = async () => {
    const later = t.fetch?.later;
    if (ended || !streamable || streamable.sessionId === undefined || !later) return null;
    ended = true;
    return later(t.url, "DELETE", await sessionHeaders(streamable, t));
  };
  try {
    const tools = await session.listTools(opts.requestTimeoutMs);
    return { session, tools, lost, close, endLater };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * What the transport sends with each request after initialize (its _commonHeaders): token, session, version, then
 * the config's headers.
 */
async function sessionHeaders(
  transport: StreamableHTTPClientTransport,
  t: Extract<Target, { kind: "http" }>,
): Promise<Record<string, string>> {
  const token = (await t.authProvider?.tokens())?.access_token;
  return {
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
    "mcp-session-id": transport.sessionId!,
    ...(transport.protocolVersion ? { "mcp-protocol-version": transport.protocolVersion } : {}),
    ...t.headers,
  };
}

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * A tools/call whose `_meta` carries the call's trace context (set by toolgate when telemetry is on,
 * src/servers/call.ts) sends it as the W3C `traceparent`/`tracestate` headers too, as HTTP servers read it.
 */
function traced(f: PolicyFetch): PolicyFetch {
  return (input, init) => {
    const body = init?.body;
    if (typeof body !== "string" || !body.includes('"traceparent"')) return f(input, init);
    let meta: { traceparent?: unknown; tracestate?: unknown } | undefined;
    try {
      const m = JSON.parse(body) as { method?: unknown; params?: { _meta?: typeof meta } };
      meta = m.method === "tools/call" ? m.params?._meta : undefined;
    } catch {
      return f(input, init);
    }
    if (typeof meta?.traceparent !== "string" || !TRACEPARENT.test(meta.traceparent)) return f(input, init);
    const headers = new Headers(init!.headers);
    headers.set("traceparent", meta.traceparent);
    if (typeof meta.tracestate === "string") headers.set("tracestate", meta.tracestate);
    return f(input, { ...init, headers });
  };
}
