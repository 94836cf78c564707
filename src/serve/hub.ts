// The served catalog for one `toolgate serve` process: each client connection (stdio, or an HTTP
// session) gets its own SDK Server over the same boot, and every tools/call runs the one pipeline
// (runtime/invoke.ts) with the same wiring as `toolgate call`. The hub tracks calls in flight so a
// shutdown can refuse new ones, let the rest finish within the grace, then cancel them.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolRequest, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { effectivePolicy, preApproved, type ApprovalAnswer, type ApprovalRequest } from "../approval/approval.ts";
import type { Descriptor, Entry } from "../catalog/catalog.ts";
import type { Declared } from "../mcp/connect.ts";
import type { ListedTool } from "../mcp/session.ts";
import { escapeControl } from "../result/escape.ts";
import type { Refusal } from "../result/result.ts";
import { callDeps, type CallWiring } from "../runtime/call-deps.ts";
import { invoke, type Invoked, type Profile } from "../runtime/invoke.ts";
import { checkpointWhenIdle } from "../state/db.ts";
import { fastPathFor } from "./dispatch.ts";
import { elicitApproval } from "./elicit.ts";
import { servedPeer, upstreamOf } from "./peer.ts";
import type { Relay, RelayClient } from "./relay.ts";
import { relayHandlers } from "./relay-handlers.ts";
import type { ServedNames } from "./names.ts";
import type { ServedCaller } from "./caller.ts";
import { renderResult, renderTool, type CallResult, type ServedTool } from "./render.ts";
import { mcpServerOf } from "../catalog/origin.ts";

export interface HubDeps {
  /** The wiring `call` uses, minus who is asked (each connection asks its own client). */
  readonly wiring: Omit<CallWiring, "ask" | "unattended" | "howToGrant" | "profile">;
  readonly profile: Profile & { readonly name: string };
  /** No human behind this session (--child): approval-required tools not covered by --approve are withheld. */
  readonly child: boolean;
  readonly names: ServedNames;
  /** Tools refused right now by a supervised source (a changed descriptor after a restart), by name. */
  readonly refusedNow?: (name: string) => Refusal | undefined;
  readonly version: string;
  /** What the upstream servers offer besides tools (resources, prompts, completions, logging). */
  readonly relay?: Relay;
  /**
   * `--expose SERVER`: only that server's tools, under its own names, as it listed them.
   * `declaring`: the names it lists on a connection that declares `declared` (what one client
   * declared), or undefined when the shared connection declares just that.
   */
  readonly exposed?: {
    readonly server: string;
    readonly listed: () => readonly ListedTool[] | undefined;
    readonly declaring?: (declared: Declared) => Promise<readonly string[] | undefined>;
  };
}

export interface ConnectOptions {
  /** An "always" answer is kept for this connection only (HTTP sessions never share approvals). */
  readonly sessionApprovals: boolean;
  /** serve --http --oauth-issuer: who opened this session; its rule narrows what the session sees and runs. */
  readonly caller?: ServedCaller;
}

export class Hub {
  readonly #servers = new Set<Server>();
  readonly #inflight = new Set<Promise<unknown>>();
  /** Aborted when the drain's grace is over: every call still running is cancelled. */
  readonly #stop = new AbortController();
  /** Messages handed to a transport and not yet written: a shutdown waits for the last answers. */
  readonly #sending = new Set<Promise<void>>();
  #closing = false;
  /** After each call: the journal's WAL is checkpointed once calls pause, not inside one. */
  #wrote: (() => void) | undefined;
  /** The wiring every call of this hub shares (a call adds who is asked and its peer). */
  #wiring: CallWiring | undefined;
  /** The same, narrowed for each caller (made on the caller's first call). */
  readonly #callerWiring = new WeakMap<ServedCaller, CallWiring>();

  constructor(private readonly deps: HubDeps) {}

  /** Whether a tool is offered to a client now: in its profile, not refused, and approvable here. */
  #offered(d: Descriptor, caller: ServedCaller | undefined): boolean {
    const { wiring, exposed } = this.deps;
    if (exposed && mcpServerOf(d.origin) !== exposed.server) return false;
    if (!(caller?.profile ?? this.deps.profile).offers(d.name)) return false;
    if (wiring.booted.refused.has(d.name) || this.deps.refusedNow?.(d.name)) return false;
    if (this.deps.child && !preApproved(d, { approved: caller?.approved ?? wiring.approved, overrides: wiring.booted.config.values.approval ?? {} })) return false;
    return true;
  }

  /** The served list (for `caller`, narrowed by its rule), in catalog order; with --expose, each tool exactly as its server listed it. */
  tools(caller?: ServedCaller): (ServedTool | Record<string, unknown>)[] {
    const overrides = this.deps.wiring.booted.config.values.approval ?? {};
    const offered = this.deps.wiring.booted.catalog.descriptors.filter((d) => this.#offered(d, caller));
    const exposed = this.deps.exposed;
    if (exposed) {
      // In the server's own order, each as it listed it.
      const byRaw = new Map(offered.map((d) => [this.deps.wiring.booted.catalog.entries.get(d.name)?.rawName ?? d.name, d]));
      return (exposed.listed() ?? []).flatMap((t) => {
        const d = byRaw.get(t.name);
        return d ? [{ ...(t.extra ?? {}), name: t.name, description: t.description ?? d.description, inputSchema: d.inputSchema }] : [];
      });
    }
    return offered.map((d) => renderTool(d, this.deps.names.toServed.get(d.name) ?? d.name, effectivePolicy(d, overrides)));
  }

  /**
   * With --expose, what its server lists to a client that declared what this one did: one without
   * sampling is not shown a tool that would ask for it (the calls go on that kind of connection too).
   * A listing that fails shows the catalog's, and the operator hears why.
   */
  async #toolsFor(server: Server, caller?: ServedCaller): Promise<ReturnType<Hub["tools"]>> {
    const all = this.tools(caller);
    const declaring = this.deps.exposed?.declaring;
    if (!declaring) return all;
    try {
      const names = await declaring(upstreamOf(server.getClientCapabilities(), this.deps.child));
      return names ? all.filter((t) => names.includes(String(t.name))) : all;
    } catch (e) {
      this.deps.wiring.operator(`toolgate: MCP server "${escapeControl(this.deps.exposed!.server)}": its tools for what this client declared could not be listed (${escapeControl((e as Error).message)}); the catalog's are shown`);
      return all;
    }
  }

  /** The catalog name behind a served tool name. */
  #fromServed(served: string): string {
    const exposed = this.deps.exposed;
    if (exposed) {
      const e = [...this.deps.wiring.booted.catalog.entries.values()].find((x) => mcpServerOf(x.origin) === exposed.server && x.rawName === served);
      return e?.name ?? served;
    }
    return this.deps.names.fromServed.get(served) ?? served;
  }

  /** Connects one client: a new SDK Server over `transport`, its handlers bound to this hub. */
  async connect(transport: Transport, opts: ConnectOptions): Promise<Server> {
    const [{ Server }, { Protocol }, types] = await Promise.all([
      import("@modelcontextprotocol/sdk/server/index.js"),
      import("@modelcontextprotocol/sdk/shared/protocol.js"),
      import("@modelcontextprotocol/sdk/types.js"),
    ]);
    const relay = this.deps.relay;
    const server = new Server(
      { name: "toolgate", version: this.deps.version },
      { capabilities: { tools: { listChanged: true }, logging: {}, ...(relay?.capabilities() ?? {}) }, instructions: relay?.instructions() ?? instructionsFor(this.deps, opts.caller?.profile) },
    );
    const remembered = new Set<string>();
    const client: RelayClient = { subscriptions: new Set(), level: undefined, notify: (method, params) => void server.notification({ method, ...(params ? { params } : {}) } as never).catch(() => {}) };
    const detach = relay?.attach(client);
    const upstream = this.deps.exposed ? () => upstreamOf(server.getClientCapabilities(), this.deps.child) : undefined;
    if (relay) relayHandlers(server, types, relay, client, upstream);
    const log = relay ? (srv: string, params: Record<string, unknown>) => relay.logFor(client, srv, params) : undefined;
    server.setRequestHandler(types.ListToolsRequestSchema, async () => ({ tools: await this.#toolsFor(server, opts.caller) }));
    // Set as the protocol sets any handler (the request parsed once, against CallToolRequestSchema),
    // not through Server's tools/call override, which parses the request a second time and the
    // result against CallToolResultSchema: every result here is built by renderResult, and a
    // server's own content passed through was parsed when it arrived. About a third of the SDK's
    // work per call.
    const setHandler = Protocol.prototype.setRequestHandler as unknown as typeof server.setRequestHandler;
    const onCall = async (request: CallToolRequest, extra: RequestHandlerExtra<ServerRequest, ServerNotification>): Promise<CallResult> => {
      const served = request.params.name;
      const name = this.#fromServed(served);
      const sent: Promise<void>[] = [];
      const canElicit = !this.deps.child && server.getClientCapabilities()?.elicitation !== undefined;
      const ask = canElicit ? (req: ApprovalRequest) => elicitApproval(req, served, extra.sendRequest as Parameters<typeof elicitApproval>[2], types.ElicitResultSchema) : undefined;
      // What an upstream MCP server asks during the call goes to this client, as far as it declared it can take it
      // (made when a tool first needs it: most calls never reach an upstream server).
      let served_: ReturnType<typeof servedPeer> | undefined;
      const peer: ReturnType<typeof servedPeer> = (who) => (served_ ??= servedPeer({
        owner: client,
        capabilities: server.getClientCapabilities(),
        child: this.deps.child,
        progressToken: request.params._meta?.progressToken,
        sendRequest: extra.sendRequest as Parameters<typeof servedPeer>[0]["sendRequest"],
        // Each notification is sent before the call's result (the protocol's order: a client drops progress after it).
        sendNotification: (n) => {
          const p = extra.sendNotification(n as never);
          sent.push(p);
          return p;
        },
        schemas: { elicit: types.ElicitResultSchema, sample: types.CreateMessageResultWithToolsSchema },
        operator: this.deps.wiring.operator,
        ...(log ? { log } : {}),
        ...(this.deps.exposed ? { exposed: true } : {}),
      }))(who);
      const result = await this.#call(name, request.params.arguments ?? {}, extra.signal, { ask, peer, remembered: opts.sessionApprovals ? remembered : undefined, trace: request.params._meta as CallWiring["trace"], caller: opts.caller });
      if (sent.length > 0) await Promise.allSettled(sent);
      return result;
    };
    setHandler.call(server, types.CallToolRequestSchema, onCall);
    server.onclose = () => {
      this.#servers.delete(server);
      detach?.();
    };
    // A line that is not JSON-RPC, a transport failure: the operator hears of it (stdout stays the protocol's).
    server.onerror = (e) => this.deps.wiring.operator(`toolgate: MCP: ${escapeControl(e.message)}`);
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const p = send(message, options);
      this.#sending.add(p);
      void p.finally(() => this.#sending.delete(p)).catch(() => {});
      return p;
    };
    await server.connect(transport);
    fastPathFor(server, transport, onCall as (request: unknown, extra: unknown) => Promise<CallResult>);
    this.#servers.add(server);
    return server;
  }

  async #call(name: string, args: unknown, signal: AbortSignal, how: Invoking): Promise<CallResult> {
    const invoked = await this.#invoke(name, args, signal, how);
    const e = invoked.envelope;
    // Exposed, a server's own isError answer reaches the client as the server sent it (the
    // boundary passed it): the client sees that server exactly.
    if (this.deps.exposed && e.status === "failed" && e.error_code === "remote_tool" && Array.isArray((e.details as { content?: unknown } | undefined)?.content)) {
      return { ...(e.details as CallResult), isError: true, _meta: { ...((e.details as { _meta?: object })._meta ?? {}), toolgate: { status: "failed", error_code: e.error_code } } };
    }
    return renderResult(e, invoked.origin);
  }

  /**
   * One request through the pipeline. `entry`: a relayed request (relay.ts), run as the only entry
   * of a catalog of its own: permissions, journal and boundary as for a tool, no profile.
   */
  /**
   * What the pipeline refuses at once (so journaled like any refusal): every call once the shutdown
   * began, and a tool its supervised source refuses now. A relayed request has a catalog of its own,
   * of methods: only the shutdown applies to it.
   */
  readonly #closingOnly = (): Refusal | undefined => (this.#closing ? SHUTTING_DOWN : undefined);
  readonly #refusedNow = (name: string): Refusal | undefined => (this.#closing ? SHUTTING_DOWN : this.deps.refusedNow?.(name));

  async #invoke(name: string, args: unknown, signal: AbortSignal, how: Invoking): Promise<Invoked & { origin: string | undefined }> {
    const entry = how.entry ?? this.deps.wiring.booted.catalog.entries.get(name);
    const shared = (this.#wiring ??= {
      ...this.deps.wiring,
      ask: undefined,
      unattended: this.deps.child,
      profile: this.deps.profile,
      // An unknown name's nearest is one this client is served (its own spelling, in its profile).
      callable: () => this.tools().map((t) => String(t.name)),
      howToGrant: (t) =>
        this.deps.child
          ? `start the child with --approve ${t}`
          : `this client cannot be asked (it does not declare the elicitation capability); start toolgate serve with --approve ${t} (or --approve all)`,
    });
    const base = how.caller ? this.#narrowedFor(how.caller, shared) : shared;
    // A client's trace context (`_meta.traceparent`): the call's span continues its trace.
    const refusedNow = how.entry ? this.#closingOnly : this.#refusedNow;
    const deps = callDeps({ ...base, ask: how.ask, refusedNow, ...(how.peer ? { peer: how.peer } : {}), ...(how.trace ? { trace: how.trace } : {}) }, signal, this.#stop.signal);
    const session = how.remembered;
    const approval = session
      ? { ...deps.approval, isRemembered: (t: string, d: string) => session.has(`${t}@${d}`) || deps.approval.isRemembered(t, d), remember: (t: string, d: string) => void session.add(`${t}@${d}`) }
      : deps.approval;
    const own = how.entry ? { catalog: { descriptors: [how.entry], entries: new Map([[name, how.entry]]) }, profile: undefined, refused: undefined } : {};
    const done = invoke(name, args, session || how.entry ? { ...deps, approval, ...own } : deps);
    this.#inflight.add(done);
    try {
      const invoked = await done;
      const { note, operator } = invoked;
      // The operator hears which rule fired where; the client gets the boundary's fixed object.
      if (note !== undefined) this.deps.wiring.operator(`toolgate: ${escapeControl(note)}`);
      if (operator !== undefined) this.deps.wiring.operator(`toolgate: ${name}: ${escapeControl(operator)}`);
      return { ...invoked, origin: entry?.origin };
    } finally {
      this.#inflight.delete(done);
      (this.#wrote ??= checkpointWhenIdle(this.deps.wiring.db()))();
    }
  }

  /** The wiring of a caller's calls: its profile and approvals (its rule's narrowing), its name on the journal rows. */
  #narrowedFor(caller: ServedCaller, shared: CallWiring): CallWiring {
    let w = this.#callerWiring.get(caller);
    if (!w) this.#callerWiring.set(caller, (w = { ...shared, profile: caller.profile ?? shared.profile, approved: caller.approved ?? shared.approved, caller: caller.id }));
    return w;
  }

  /** A relayed request (relay.ts) through the pipeline, as a call is. */
  runRelayed(entry: Entry, args: Record<string, unknown>, signal: AbortSignal, peer?: CallWiring["peer"]): Promise<Invoked> {
    return this.#invoke(entry.name, args, signal, { ask: undefined, remembered: undefined, ...(peer ? { peer } : {}), entry });
  }

  /** Tells every connected client the served list changed. */
  async listChanged(): Promise<void> {
    await Promise.all([...this.#servers].map((s) => s.sendToolListChanged().catch(() => {})));
  }

  /** New calls are refused from now on; calls in flight get `graceMs` to finish, then are cancelled and awaited. */
  async drain(graceMs: number): Promise<void> {
    this.#closing = true;
    const all = () => Promise.allSettled([...this.#inflight]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = await Promise.race([all().then(() => false), new Promise<boolean>((res) => (timer = setTimeout(() => res(true), graceMs)))]);
    clearTimeout(timer);
    if (late) {
      this.#stop.abort();
      await all();
    }
    // The SDK hands each answer to the transport a few microtasks after its handler settles.
    await new Promise((res) => setImmediate(res));
    await Promise.allSettled([...this.#sending]);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#servers].map((s) => s.close().catch(() => {})));
  }
}

const SHUTTING_DOWN: Refusal = { code: "serve.shutting_down", message: "toolgate serve is shutting down; the call was not run" };

/** How one request runs: who is asked, its peer, the session's remembered approvals, a relayed entry, the client's trace, its caller. */
interface Invoking {
  readonly ask: ((req: ApprovalRequest) => Promise<ApprovalAnswer>) | undefined;
  readonly peer?: CallWiring["peer"];
  readonly remembered: Set<string> | undefined;
  readonly entry?: Entry;
  readonly trace?: CallWiring["trace"];
  readonly caller?: ServedCaller | undefined;
}

/** What the client is told at initialize: the profile, and how approvals work here. */
function instructionsFor(d: HubDeps, own?: Profile): string {
  const approvals = d.child
    ? "This is an unattended child session: tools that need approval and were not approved when it was started are not offered."
    : "Tools that need approval are approved with --approve when serve starts, or asked through the client's elicitation when it supports it.";
  return `toolgate serves its catalog (profile ${(own ?? d.profile).name}) through one pipeline: permissions, approval, the output boundary and the journal. ${approvals}`;
}
