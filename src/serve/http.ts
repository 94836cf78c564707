// `toolgate serve --http`: MCP over Streamable HTTP at /mcp with Bun.serve and the SDK's web-standard
// transport. Every request passes the Host/Origin check first (http-guard.ts), then the static
// bearer token or, with --oauth-issuer, an access token whose caller is admitted (oauth/gate.ts);
// each initialize opens one session (Mcp-Session-Id): its own transport and its own Server from the
// hub, so approvals answered "always" stay in that session (a caller's are remembered as its own),
// and a session belongs to the caller that opened it, who may hold its rule's number at once. The session table
// (sessions.ts) is bounded and never locks a client out; request
// bodies are bounded.
import { randomUUID } from "node:crypto";
import { ok, refuse, type Outcome } from "../result/result.ts";
import { bearerMatches, bracketed, guardFor, rebindingProblem, type Guard } from "./http-guard.ts";
import type { HttpOptions } from "./http-options.ts";
import type { Hub } from "./hub.ts";
import type { ServedCaller } from "./caller.ts";
import type { PreparedOAuth } from "./oauth/start.ts";
import type { Authenticator } from "./oauth/gate.ts";
import { metadataUrl } from "./oauth/resource.ts";
import { CallerLimits } from "./oauth/limits.ts";
import { CallerSessions } from "./oauth/session-limit.ts";
import { MAX_SESSIONS, SessionTable } from "./sessions.ts";

export { MAX_SESSIONS, SESSION_IDLE_MS } from "./sessions.ts";

export const MCP_PATH = "/mcp";
/** The largest request body (JSON-RPC message or batch) read; larger is 413 before parsing. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Seconds a connection may stay silent; SSE streams send a keep-alive comment more often (15 s). */
const IDLE_TIMEOUT_SECS = 120;

export interface HttpDeps {
  readonly hub: Hub;
  readonly options: HttpOptions;
  /** One operator line (stderr). */
  readonly log: (line: string) => void;
  readonly now?: () => number;
  readonly interfaces?: () => readonly string[];
  /** --oauth-issuer: the issuer's keys loaded; each request's token is checked instead of the static one. */
  readonly oauth?: PreparedOAuth;
}

export interface HttpServer {
  readonly url: string;
  /** From now on no session is opened (existing ones go on until the hub closes them). */
  refuseNewSessions(): void;
  /** Closes every session's transport, then the listening socket and its connections. */
  stop(): Promise<void>;
}

const rpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });

// node:os on first use: a static import of a builtin is loaded at every start of the binary.
const hostAddresses = () =>
  Object.values((require("node:os") as typeof import("node:os")).networkInterfaces())
    .flat()
    .flatMap((i) => (i ? [i.address] : []));

export async function listenHttp(d: HttpDeps): Promise<Outcome<HttpServer>> {
  const [{ WebStandardStreamableHTTPServerTransport: Transport }, { isInitializeRequest }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  const { options: o, hub } = d;
  const sessions = new SessionTable({ now: d.now ?? Date.now, log: (line) => d.log(line) });
  let opening = 0;
  let refusing = false;
  // Set once listening: with port 0, the Host a client sends carries the port the system picked.
  let guard!: Guard;
  let door: Authenticator | undefined;
  const limits = new CallerLimits(d.now ?? Date.now);
  const seats = new CallerSessions(sessions, d.now ?? Date.now, MCP_PATH);

  async function open(req: Request, caller: ServedCaller | undefined): Promise<Response> {
    const body = await readBounded(req, MAX_BODY_BYTES);
    if (body === "too large")
      return rpcError(413, -32000, `Payload Too Large: a request body may be at most ${MAX_BODY_BYTES} bytes`);
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      return rpcError(400, -32700, "Parse error: Invalid JSON");
    }
    if (!isInitializeRequest(message)) return rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
    if (refusing) return rpcError(503, -32000, "Service Unavailable: toolgate serve is shutting down");
    // A caller at its rule's concurrent_sessions opens no more (before room() ends anyone's idle one).
    const taken = caller?.maxSessions === undefined ? undefined : await seats.take(caller.key, caller.maxSessions);
    if (taken && "refused" in taken) return rpcError(429, -32000, taken.refused, { "Retry-After": String(taken.wait) });
    opening++;
    try {
      if (!(await sessions.room(opening)))
        return rpcError(
          503,
          -32000,
          `Service Unavailable: all ${MAX_SESSIONS} sessions have a request in flight; retry in a moment`,
          { "Retry-After": "1" },
        );
      const session = sessions.create(
        (parts) => new Transport({ sessionIdGenerator: randomUUID, maxRequestBodySize: MAX_BODY_BYTES, ...parts }),
      );
      session.owner = caller?.key;
      taken?.seat.hold(session);
      await hub.connect(session.transport, { sessionApprovals: true, ...(caller ? { caller } : {}) });
      sessions.watch(session);
      const res = await session.transport.handleRequest(door ? withoutCredentials(req, false) : req, {
        parsedBody: message,
      });
      // Refused before a session began (Accept, Content-Type, protocol version): nothing to keep.
      if (session.transport.sessionId === undefined) await session.transport.close();
      return res;
    } finally {
      opening--;
      taken?.seat.release();
    }
  }

  async function handle(req: Request): Promise<Response> {
    // First, before anything reads the request: its URL is built from the Host header, and a Host
    // that is not a host (`a b`, `127.0.0.1:8080,x`) makes one that does not parse.
    const problem = rebindingProblem(guard, req.headers.get("host"), req.headers.get("origin"));
    if (problem !== null) return rpcError(403, -32000, `Forbidden: ${problem}`);
    const path = new URL(req.url).pathname;
    let caller: ServedCaller | undefined;
    if (door) {
      // The metadata is public: a client reads it to learn where to get a token.
      const doc = req.method === "GET" || req.method === "HEAD" ? door.metadata(path) : undefined;
      if (doc)
        return new Response(JSON.stringify(doc), {
          headers: { "Content-Type": "application/json", "Cache-Control": "max-age=300" },
        });
      const admitted = await door.check(req.headers.get("authorization"));
      if (!admitted.ok)
        return rpcError(
          admitted.denied.status,
          -32000,
          admitted.denied.message,
          admitted.denied.challenge ? { "WWW-Authenticate": admitted.denied.challenge } : {},
        );
      caller = admitted.caller;
      const wait = caller.perMinute === undefined ? 0 : limits.take(caller.key, caller.perMinute);
      if (wait > 0)
        return rpcError(
          429,
          -32000,
          `Too Many Requests: this caller may send ${caller.perMinute} requests a minute; retry in ${wait} s`,
          { "Retry-After": String(wait) },
        );
    } else if (o.token !== null && !bearerMatches(req.headers.get("authorization"), o.token)) {
      return rpcError(
        401,
        -32000,
        "Unauthorized: send the bearer token serve printed (or the one in --token-file) as Authorization: Bearer TOKEN",
        { "WWW-Authenticate": 'Bearer realm="toolgate"' },
      );
    }
    if (path !== MCP_PATH) return rpcError(404, -32000, `Not Found: the MCP endpoint is ${MCP_PATH}`);
    if (req.method !== "POST" && req.method !== "GET" && req.method !== "DELETE")
      return rpcError(405, -32000, "Method not allowed.", { Allow: "GET, POST, DELETE" });
    const id = req.headers.get("mcp-session-id");
    if (id === null)
      return req.method === "POST"
        ? open(req, caller)
        : rpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
    const session = sessions.get(id);
    // Another caller's session is not found, as one that never was: its id tells the other nothing.
    if (!session || session.owner !== caller?.key) return rpcError(404, -32001, "Session not found");
    return session.transport.handleRequest(door ? withoutCredentials(req, true) : req);
  }

  let server: ReturnType<typeof Bun.serve>;
  try {
    server = Bun.serve({
      hostname: o.host,
      port: o.port,
      development: false,
      idleTimeout: IDLE_TIMEOUT_SECS,
      // A backstop only: the bound itself is checked below and by the transport, answered as JSON-RPC.
      maxRequestBodySize: MAX_BODY_BYTES + 1024 * 1024,
      fetch: handle,
      error: () => rpcError(500, -32603, "Internal error"),
    });
  } catch (e) {
    return refuse("serve.http_bind", `cannot listen on ${bracketed(o.host)}:${o.port}: ${(e as Error).message}`);
  }
  const port = server.port!;
  guard = guardFor(o.host, port, o.loopback, d.interfaces ?? hostAddresses);
  const url = `http://${bracketed(o.host)}:${port}${MCP_PATH}`;
  if (d.oauth) {
    door = d.oauth.at(url, MCP_PATH);
    d.log(
      `OAuth: access tokens from ${o.oauth?.issuer} for ${door.resource} (metadata: ${metadataUrl(door.resource)})`,
    );
  }
  if (o.tokenSource === "generated") d.log(`bearer token (shown once): ${o.token}`);
  if (o.tokenSource === "none")
    d.log("no bearer token (--no-token): every process on this machine may call this server");
  sessions.startSweeping();
  d.log(`serving MCP at ${url}`);
  return ok({
    url,
    refuseNewSessions: () => void (refusing = true),
    stop: async () => {
      refusing = true;
      await sessions.closeAll();
      await server.stop(true);
    },
  });
}

/**
 * The request as the MCP transport gets it, without its Authorization header: a caller's token
 * stops at the door, so nothing past it (a handler, a relayed request) can pass it on upstream.
 * `body`: the body is still to be read (a session's request), else it was parsed already.
 */
function withoutCredentials(req: Request, body: boolean): Request {
  const headers = new Headers(req.headers);
  headers.delete("authorization");
  return body ? new Request(req, { headers }) : new Request(req.url, { method: req.method, headers });
}

/** The body as text, or "too large" past `max` bytes (declared or counted while reading). */
async function readBounded(req: Request, max: number): Promise<string | "too large"> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > max) return "too large";
  if (!req.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return "too large";
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
