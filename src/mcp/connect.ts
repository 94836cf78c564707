// Connecting to one MCP server: a stdio child started by the launcher (never by the SDK) or a
// Streamable HTTP endpoint. A connection that fails says why, with the child's stderr tail.
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { ChildEnv } from "../launcher/env.ts";
import { startServer, type RunningServer } from "../launcher/server.ts";
import type { Redactor, Sandbox } from "../launcher/types.ts";
import type { ReapOrder } from "../launcher/reaper.ts";
import { openSession, type ListedTool, type McpSession } from "./session.ts";
import { PipeTransport } from "./transport.ts";

export type Target =
  | { readonly kind: "stdio"; readonly name: string; readonly argv: readonly string[]; readonly env: ChildEnv; readonly cwd: string; readonly sandbox?: Sandbox }
  /** `sse`: the legacy HTTP+SSE transport (a GET stream, POSTs to the endpoint it names), for `type: "sse"` servers. */
  | { readonly kind: "http"; readonly name: string; readonly url: string; readonly headers: Readonly<Record<string, string>>; readonly fetch?: PolicyFetch; readonly sse?: boolean; readonly authProvider?: OAuthClientProvider };

/** The HTTP adapter's fetch (src/http): every request of the transport goes through the URL policy. */
export type PolicyFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface Connection {
  readonly session: McpSession;
  readonly tools: readonly ListedTool[];
  /** The child, for stdio (its pid and stderr); absent for HTTP. */
  readonly child?: RunningServer;
  /**
   * Resolves with why the connection is gone, as a phrase after the server's name ("exited with
   * status 3", "was killed by a signal", "closed its stdout"; HTTP: "cannot be reached (...)", "no
   * longer knows this session (HTTP 404)"), whoever closed it. A supervisor watches it.
   */
  readonly lost?: Promise<string>;
  /** Closes the session; for a child, the seed's shutdown (stdin closed, grace, kill). */
  close(graceMs: number): Promise<void>;
  /** For an unsandboxed child: the same shutdown, left to the reaper (RunningServer.handOff). */
  handOff?(graceMs: number): ReapOrder | null;
}

export interface ConnectOptions {
  readonly pin: boolean;
  readonly connectTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly version: string;
  readonly redactor: (secrets: readonly string[]) => Redactor;
  readonly onNoise?: (server: string, line: string) => void;
  /** Declare sampling (serve relays it to a client that supports it). */
  readonly sampling?: boolean;
}

export async function connectTarget(t: Target, opts: ConnectOptions): Promise<Connection> {
  if (t.kind === "http") {
    const { StreamableHTTPClientTransport, StreamableHTTPError } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const init = { requestInit: { headers: { ...t.headers } }, ...(t.fetch ? { fetch: t.fetch } : {}), ...(t.authProvider ? { authProvider: t.authProvider } : {}) };
    const transport = t.sse ? new (await import("@modelcontextprotocol/sdk/client/sse.js")).SSEClientTransport(new URL(t.url), init) : new StreamableHTTPClientTransport(new URL(t.url), init);
    // No process to watch: the session is lost when the endpoint cannot be reached, or answers
    // 404 to the session id (the server restarted). The SDK chains this before its own handler.
    let markLost!: (why: string) => void;
    // Resolved on the next turn: the request that failed settles with its own error first (a
    // supervisor closing the session at once would turn a 404's plain failure into "connection closed").
    const lost = new Promise<string>((res) => (markLost = (why) => void setTimeout(() => res(why), 0)));
    transport.onerror = (e) => {
      if (e instanceof StreamableHTTPError) {
        if (e.code === 404) markLost("no longer knows this session (HTTP 404)");
      } else if (e instanceof TypeError || typeof (e as { code?: unknown }).code === "string") {
        markLost(`cannot be reached (${e.message.slice(0, 200)})`);
      }
    };
    const session = await openSession(transport, { pin: opts.pin, connectTimeoutMs: opts.connectTimeoutMs, version: opts.version, ...(opts.sampling ? { sampling: true } : {}) });
    const tools = await session.listTools(opts.requestTimeoutMs);
    return { session, tools, lost, close: () => session.close().catch(() => {}) };
  }
  const started = startServer({ argv: t.argv, env: t.env, cwd: t.cwd, redactor: opts.redactor, ...(t.sandbox ? { sandbox: t.sandbox } : {}) });
  if (!started.ok) throw new Error(started.refusal.message);
  const child = started.value;
  const transport = new PipeTransport(
    { write: (d) => child.write(d), stdout: child.stdout, endInput: () => child.endInput() },
    (line) => opts.onNoise?.(t.name, line),
  );
  const close = async (graceMs: number) => {
    await child.shutdown(graceMs);
  };
  try {
    const session = await openSession(transport, { pin: opts.pin, connectTimeoutMs: opts.connectTimeoutMs, version: opts.version, ...(opts.sampling ? { sampling: true } : {}) });
    const tools = await session.listTools(opts.requestTimeoutMs);
    const exit = child.exited.then((code) => (code === null ? "was killed by a signal" : `exited with status ${code}`));
    // stdout usually closes a moment before the exit is reaped: wait briefly to say which it was.
    // (The wait keeps nothing alive: a process that handed its child over exits without it.)
    const stdoutClosed = () => new Promise<string>((res) => setTimeout(() => res("closed its stdout"), 200).unref());
    const lost = Promise.race([exit, transport.closed.then(() => Promise.race([exit, stdoutClosed()]))]);
    // A sandboxed child dies with this process (bwrap --die-with-parent): no reaper could give it its grace.
    return { session, tools, child, close, lost, ...(t.sandbox ? {} : { handOff: (graceMs: number) => child.handOff(graceMs) }) };
  } catch (e) {
    await close(0);
    const tail = child.stderrTail().trim();
    throw new Error(`${(e as Error).message}${tail ? `; its stderr ends with: ${tail.slice(-600)}` : ""}`);
  }
}
