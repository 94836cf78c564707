// The served catalog for one `toolgate serve` process: each client connection (stdio, or an HTTP
// session) gets its own SDK Server over the same boot, with handlers for the served list
// (served.ts), tools/call (each call run by the tool caller, tool-caller.ts: the Runtime, as
// `toolgate call` runs it) and, when upstream servers offer more, the relayed methods
// (relay.ts). The hub tracks answers being written so a shutdown waits for the last ones.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolRequest } from "@modelcontextprotocol/sdk/types.js";
import type { ApprovalRequest } from "../approval/approval.ts";
import type { CallWiring } from "../runtime/call-deps.ts";
import type { Profile } from "../runtime/invoke.ts";
import { escapeControl } from "../result/escape.ts";
import { fastCalls, type CallExtra } from "./dispatch.ts";
import { elicitApproval } from "./elicit.ts";
import { servedPeer, upstreamOf } from "./peer.ts";
import type { Relay, RelayClient } from "./relay.ts";
import { relayHandlers } from "./relay-handlers.ts";
import type { ServedCaller } from "./caller.ts";
import { renderResult, type CallResult } from "./render.ts";
import type { ServedList } from "./served.ts";
import type { Calling, ToolCaller } from "./tool-caller.ts";

export interface HubDeps {
  /** What each client is offered, and the catalog name behind each served name. */
  readonly served: ServedList;
  /** Runs each call through the pipeline. */
  readonly calls: ToolCaller;
  readonly version: string;
  /** What the upstream servers offer besides tools (resources, prompts, completions, logging). */
  readonly relay?: Relay;
}

export interface ConnectOptions {
  /**
   * An "always" answer is kept for this connection only (HTTP sessions never share approvals), and remembered as its
   * caller's.
   */
  readonly sessionApprovals: boolean;
  /** serve --http --oauth-issuer: who opened this session; its rule narrows what the session sees and runs. */
  readonly caller?: ServedCaller;
}

export class Hub {
  readonly #servers = new Set<Server>();
  /** Messages handed to a transport and not yet written: a shutdown waits for the last answers. */
  readonly #sending = new Set<Promise<void>>();

  constructor(private readonly deps: HubDeps) {}

  /** The served list (for `caller`, narrowed by its rule). */
  tools(caller?: ServedCaller): ReturnType<ServedList["tools"]> {
    return this.deps.served.tools(caller);
  }

  /** Connects one client: a new SDK Server over `transport`, its handlers bound to this hub. */
  async connect(transport: Transport, opts: ConnectOptions): Promise<Server> {
    const [{ Server }, types] = await Promise.all([
      import("@modelcontextprotocol/sdk/server/index.js"),
      import("@modelcontextprotocol/sdk/types.js"),
    ]);
    const { relay, served: list } = this.deps;
    const { child, exposed, operator } = list.deps;
    const server = new Server(
      { name: "toolgate", version: this.deps.version },
      {
        capabilities: { tools: { listChanged: true }, logging: {}, ...(relay?.capabilities() ?? {}) },
        instructions: relay?.instructions() ?? instructionsFor(list.deps, opts.caller?.profile),
      },
    );
    const remembered = new Set<string>();
    const client: RelayClient = {
      subscriptions: new Set(),
      level: undefined,
      notify: (method, params) =>
        void server.notification({ method, ...(params ? { params } : {}) } as never).catch(() => {}),
    };
    const detach = relay?.attach(client);
    const declared = () => upstreamOf(server.getClientCapabilities(), child);
    const upstream = exposed ? declared : undefined;
    if (relay) relayHandlers(server, types, relay, client, upstream);
    const log = relay ? (srv: string, params: Record<string, unknown>) => relay.logFor(client, srv, params) : undefined;
    server.setRequestHandler(types.ListToolsRequestSchema, async () => ({
      tools: await list.toolsFor(declared, opts.caller),
    }));
    const onCall = async (request: CallToolRequest, extra: CallExtra): Promise<CallResult> => {
      const served = request.params.name;
      const name = list.fromServed(served);
      const sent: Promise<void>[] = [];
      const canElicit = !child && server.getClientCapabilities()?.elicitation !== undefined;
      const ask = canElicit
        ? (req: ApprovalRequest) =>
            elicitApproval(
              req,
              served,
              extra.sendRequest as Parameters<typeof elicitApproval>[2],
              types.ElicitResultSchema,
            )
        : undefined;
      // What an upstream MCP server asks during the call goes to this client, as far as it declared it can take it
      // (made when a tool first needs it: most calls never reach an upstream server).
      let served_: ReturnType<typeof servedPeer> | undefined;
      const peer: ReturnType<typeof servedPeer> = (who) =>
        (served_ ??= servedPeer({
          owner: client,
          capabilities: server.getClientCapabilities(),
          child,
          progressToken: request.params._meta?.progressToken,
          sendRequest: extra.sendRequest as Parameters<typeof servedPeer>[0]["sendRequest"],
          // Each notification is sent before the call's result (the protocol's order: a client drops progress after
          // it).
          sendNotification: (n) => {
            const p = extra.sendNotification(n as never);
            sent.push(p);
            return p;
          },
          schemas: { elicit: types.ElicitResultSchema, sample: types.CreateMessageResultWithToolsSchema },
          operator,
          ...(log ? { log } : {}),
          ...(exposed ? { exposed: true } : {}),
        }))(who);
      const how: Calling = {
        signal: extra.signal,
        ask,
        peer,
        remembered: opts.sessionApprovals ? remembered : undefined,
        trace: request.params._meta as CallWiring["trace"],
        caller: opts.caller,
      };
      const result = await this.#call(name, request.params.arguments ?? {}, how);
      if (sent.length > 0) await Promise.allSettled(sent);
      return result;
    };
    // A call that is not plain takes the SDK's own path (the request and the result parsed against its schemas).
    server.setRequestHandler(types.CallToolRequestSchema, onCall);
    server.onclose = () => {
      this.#servers.delete(server);
      detach?.();
    };
    // A line that is not JSON-RPC, a transport failure: the operator hears of it (stdout stays the protocol's).
    server.onerror = (e) => operator(`toolgate: MCP: ${escapeControl(e.message)}`);
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const p = send(message, options);
      this.#sending.add(p);
      void p.finally(() => this.#sending.delete(p)).catch(() => {});
      return p;
    };
    await server.connect(transport);
    // A plain call is taken off the transport, as the SDK would take it, without its parses (dispatch.ts).
    fastCalls(server, transport, onCall, types);
    this.#servers.add(server);
    return server;
  }

  async #call(name: string, args: unknown, how: Calling): Promise<CallResult> {
    const invoked = await this.deps.calls.call(name, args, how);
    const e = invoked.envelope;
    // Exposed, a server's own isError answer reaches the client as the server sent it (the
    // boundary passed it): the client sees that server exactly.
    if (
      this.deps.served.deps.exposed &&
      e.status === "failed" &&
      e.error_code === "remote_tool" &&
      Array.isArray((e.details as { content?: unknown } | undefined)?.content)
    ) {
      return {
        ...(e.details as CallResult),
        isError: true,
        _meta: {
          ...((e.details as { _meta?: object })._meta ?? {}),
          toolgate: { status: "failed", error_code: e.error_code },
        },
      };
    }
    return renderResult(e, invoked.origin);
  }

  /** Tells every connected client the served list changed. */
  async listChanged(): Promise<void> {
    await Promise.all([...this.#servers].map((s) => s.sendToolListChanged().catch(() => {})));
  }

  /**
   * New calls are refused from now on; calls in flight get `graceMs` to finish, then are cancelled and awaited, and
   * their answers written.
   */
  async drain(graceMs: number): Promise<void> {
    await this.deps.calls.drain(graceMs);
    // The SDK hands each answer to the transport a few microtasks after its handler settles.
    await new Promise((res) => setImmediate(res));
    await Promise.allSettled([...this.#sending]);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#servers].map((s) => s.close().catch(() => {})));
  }
}

/** What the client is told at initialize: the profile, and how approvals work here. */
function instructionsFor(
  d: { readonly child: boolean; readonly profile: { readonly name: string } },
  own?: Profile,
): string {
  const approvals = d.child
    ? "This is an unattended child session: tools that need approval and were not approved when it was started " +
      "are not offered."
    : "Tools that need approval are approved with --approve when serve starts, or asked through the client's " +
      "elicitation when it supports it.";
  return (
    `toolgate serves its catalog (profile ${(own ?? d.profile).name}) through one pipeline: permissions, ` +
    `approval, the output boundary and the journal. ${approvals}`
  );
}
