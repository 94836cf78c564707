// Real MCP servers over HTTP for the tests, built with the SDK's own server classes (their protocol
// side is the SDK's, not ours), on loopback port 0: Streamable HTTP, stateless (a fresh server per
// request, JSON answers) or with session ids, and the legacy SSE transport.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

/** The tool most tests list: `hello`, no arguments. */
export const HELLO: Tool = { name: "hello", description: "Say hello", inputSchema: { type: "object", properties: {} } };
/** What `hello` answers. */
export const SAID_HELLO: CallToolResult = { content: [{ type: "text", text: "hello" }] };

/**
 * What a server offers: its name ("web"), its tools ([HELLO]) and how it answers a call (SAID_HELLO;
 * `http` is the HTTP request that carried it, where one request carries one call).
 */
export interface McpOffer {
  readonly name?: string;
  readonly tools?: readonly Tool[];
  readonly call?: (request: CallToolRequest, http?: Request) => CallToolResult | Promise<CallToolResult>;
}

function mcpServer(offer: McpOffer, http?: Request): Server {
  const server = new Server({ name: offer.name ?? "web", version: "1" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...(offer.tools ?? [HELLO])] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    offer.call ? offer.call(request, http) : SAID_HELLO,
  );
  return server;
}

/** `req` answered by a fresh stateless server (Streamable HTTP, JSON answers): for a route of a server of the test's own. */
export async function answerMcp(req: Request, offer: McpOffer = {}): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await mcpServer(offer, req).connect(transport);
  return transport.handleRequest(req);
}

export interface HttpMcp extends AsyncDisposable {
  readonly port: number;
  /** 127.0.0.1:PORT, as a net grant names it. */
  readonly hostPort: string;
  /** http://127.0.0.1:PORT/mcp (every path answers MCP but the ones `route` takes). */
  readonly url: string;
  /** With sessions: forgets every one, as a restarted server does (their ids then get 404). */
  forget(): void;
  stop(): void;
}

export interface HttpMcpOptions extends McpOffer {
  /** Session ids (the SDK's stateful mode) instead of a server per request. */
  readonly sessions?: boolean;
  /** Sees each request first; a Response it returns is the answer (other routes of the test's own). */
  readonly route?: (req: Request) => Response | undefined | Promise<Response | undefined>;
}

/** A loopback server answering MCP over Streamable HTTP; stopped by `await using` or stop(). */
export function serveMcp(opts: HttpMcpOptions = {}): HttpMcp {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const stateful = async (req: Request): Promise<Response> => {
    const id = req.headers.get("mcp-session-id");
    if (id) return sessions.get(id)?.handleRequest(req) ?? new Response("unknown session", { status: 404 });
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      enableJsonResponse: true,
      onsessioninitialized: (sid) => void sessions.set(sid, transport),
    });
    await mcpServer(opts).connect(transport);
    return transport.handleRequest(req);
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => (await opts.route?.(req)) ?? (opts.sessions ? stateful(req) : answerMcp(req, opts)),
  });
  const stop = () => void server.stop(true);
  return {
    port: server.port!,
    hostPort: `127.0.0.1:${server.port}`,
    url: `http://127.0.0.1:${server.port}/mcp`,
    forget: () => sessions.clear(),
    stop,
    [Symbol.asyncDispose]: async () => stop(),
  };
}

export interface SseMcp extends AsyncDisposable {
  readonly port: number;
  /** http://127.0.0.1:PORT/sse: GET opens the stream, POST /message?sessionId=… carries each request. */
  readonly url: string;
  close(): Promise<void>;
}

/** A loopback server over the legacy SSE transport; `onRequest` sees each request's headers first. */
export async function serveSseMcp(
  opts: McpOffer & { onRequest?: (headers: Record<string, string | string[] | undefined>) => void } = {},
): Promise<SseMcp> {
  const sessions = new Map<string, SSEServerTransport>();
  const http = createServer(async (req, res) => {
    opts.onRequest?.(req.headers);
    const url = new URL(req.url!, "http://x");
    if (req.method === "GET" && url.pathname === "/sse") {
      const transport = new SSEServerTransport("/message", res);
      sessions.set(transport.sessionId, transport);
      await mcpServer(opts).connect(transport);
      return;
    }
    const t = sessions.get(url.searchParams.get("sessionId") ?? "");
    if (req.method === "POST" && url.pathname === "/message" && t) return void (await t.handlePostMessage(req, res));
    res.writeHead(405).end();
  });
  await new Promise<void>((ok) => http.listen(0, "127.0.0.1", ok));
  const port = (http.address() as AddressInfo).port;
  // Open streams are cut, not waited for (a client may still hold one).
  const close = async () => {
    http.close();
    http.closeAllConnections();
  };
  return { port, url: `http://127.0.0.1:${port}/sse`, close, [Symbol.asyncDispose]: close };
}
