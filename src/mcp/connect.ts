// Connecting to one MCP server: a stdio child started by the launcher (never by the SDK) or a
// Streamable HTTP endpoint. A connection that fails says why, with the child's stderr tail.
import type { ChildEnv } from "../launcher/env.ts";
import { startServer, type RunningServer } from "../launcher/server.ts";
import type { Redactor, Sandbox } from "../launcher/types.ts";
import { openSession, type ListedTool, type McpSession } from "./session.ts";
import { PipeTransport } from "./transport.ts";

export type Target =
  | { readonly kind: "stdio"; readonly name: string; readonly argv: readonly string[]; readonly env: ChildEnv; readonly cwd: string; readonly sandbox?: Sandbox }
  | { readonly kind: "http"; readonly name: string; readonly url: string; readonly headers: Readonly<Record<string, string>> };

export interface Connection {
  readonly session: McpSession;
  readonly tools: readonly ListedTool[];
  /** The child, for stdio (its pid and stderr); absent for HTTP. */
  readonly child?: RunningServer;
  /**
   * stdio: resolves with why the connection is gone (the child exited, or its stdout closed while
   * it lives on), whoever closed it; calls in flight on it have failed as `transport`. Absent for HTTP.
   */
  readonly lost?: Promise<string>;
  /** Closes the session; for a child, the seed's shutdown (stdin closed, grace, kill). */
  close(graceMs: number): Promise<void>;
}

export interface ConnectOptions {
  readonly pin: boolean;
  readonly connectTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly version: string;
  readonly redactor: (secrets: readonly string[]) => Redactor;
  readonly onNoise?: (server: string, line: string) => void;
}

export async function connectTarget(t: Target, opts: ConnectOptions): Promise<Connection> {
  if (t.kind === "http") {
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const transport = new StreamableHTTPClientTransport(new URL(t.url), { requestInit: { headers: { ...t.headers } } });
    const session = await openSession(transport, { pin: opts.pin, connectTimeoutMs: opts.connectTimeoutMs, version: opts.version });
    const tools = await session.listTools(opts.requestTimeoutMs);
    return { session, tools, close: () => session.close().catch(() => {}) };
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
    const session = await openSession(transport, { pin: opts.pin, connectTimeoutMs: opts.connectTimeoutMs, version: opts.version });
    const tools = await session.listTools(opts.requestTimeoutMs);
    const exit = child.exited.then((code) => (code === null ? "was killed by a signal" : `exited with status ${code}`));
    // stdout usually closes a moment before the exit is reaped: wait briefly to say which it was.
    const lost = Promise.race([exit, transport.closed.then(() => Promise.race([exit, Bun.sleep(200).then(() => "closed its stdout")]))]);
    return { session, tools, child, close, lost };
  } catch (e) {
    await close(0);
    const tail = child.stderrTail().trim();
    throw new Error(`${(e as Error).message}${tail ? `; its stderr ends with: ${tail.slice(-600)}` : ""}`);
  }
}
