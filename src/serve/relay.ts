// serve as a complete gateway (docs/mcp.md): what the upstream MCP servers offer besides tools —
// resources (list, read, templates, subscribe), prompts (list, get), completions and logging — is
// relayed to each client through the same stages as a tool call: the server's start permission,
// a journal row (effect read), the output boundary and redaction of the server's secrets.
// A relayed request runs one way: relay-handlers.ts (the client's request) → here (which server,
// merged lists, served names) → the tool caller (tool-caller.ts: the pipeline) → the method's entry
// (relay-entry.ts: the request on the server's connection) → back as the answer. What servers send
// on their own goes to the clients through relay-clients.ts.
// A read, subscription or completion goes to the server whose own lists claim it (relay-routes.ts),
// asked for on a client's first request when no list has named it yet.
import type { Entry } from "../catalog/catalog.ts";
import type { Peer } from "../mcp/peer.ts";
import type { ServerInfo } from "../mcp/session.ts";
import type { RemoteSpec } from "../servers/specs.ts";
import { relayEntry, relayedOf, type Relayed, type RelaySources } from "./relay-entry.ts";
import { page, promptOwner, servedPrompt, unknownResource } from "./relay-names.ts";
import { ResourceRoutes } from "./relay-routes.ts";
import { RelayClients, type RelayClient } from "./relay-clients.ts";
import type { ToolCaller } from "./tool-caller.ts";

export type { Relayed, RelaySources } from "./relay-entry.ts";
export type { RelayClient } from "./relay-clients.ts";

/** The peer of one relayed request on one server: its owner, and where its server's log lines go. */
export type RelayPeer = (call: { tool: string; server: string }) => Peer;

/** A client's request being relayed: its cancellation, and its peer. */
export interface Asking {
  readonly signal: AbortSignal;
  readonly peer: RelayPeer;
}

export interface RelayDeps {
  readonly sources: RelaySources;
  /** `serve --expose NAME`: only this server, under its own names. */
  readonly expose?: string;
  /** Runs each relayed request through the pipeline, its method's entry as a one-entry catalog. */
  readonly calls: Pick<ToolCaller, "callEntry">;
  readonly operator: (line: string) => void;
}

const MAX_PAGES = 100;
/** JSON-RPC's "Method not found": only a server's own answer carries it (relayedOf gives toolgate's errors -32603). */
const METHOD_NOT_FOUND = -32601;

export class Relay {
  readonly #clients: RelayClients;
  readonly #entries = new Map<string, Entry>();
  /**
   * What the servers' lists said (any client's, or the relay's own on a miss): routes reads, subscriptions and
   * completions.
   */
  readonly #routes = new ResourceRoutes();
  /** Upstream subscriptions: `server\0uri` → how many clients hold it. */
  readonly #upstream = new Map<string, number>();

  constructor(private readonly deps: RelayDeps) {
    this.#clients = new RelayClients({ sources: deps.sources, routes: this.#routes, operator: deps.operator });
  }

  /** The relayed servers: listed, MCP (Las offers tools only), and only the exposed one with --expose. */
  servers(): { spec: RemoteSpec; info: ServerInfo }[] {
    const out: { spec: RemoteSpec; info: ServerInfo }[] = [];
    for (const st of this.deps.sources.status) {
      const spec = this.deps.sources.spec(st.name);
      if (!st.ok || !spec || spec.kind !== "mcp" || (this.deps.expose !== undefined && st.name !== this.deps.expose))
        continue;
      out.push({ spec, info: st.server ?? { capabilities: {} } });
    }
    return out;
  }

  #with(cap: string) {
    return this.servers().filter((s) => s.info.capabilities[cap] !== undefined && s.info.capabilities[cap] !== null);
  }

  /** The capabilities the relayed set has, to declare at initialize (nothing a server does not offer). */
  capabilities(): Record<string, unknown> {
    const res = this.#with("resources");
    return {
      ...(res.length > 0
        ? {
            resources: {
              listChanged: true,
              ...(res.some((s) => (s.info.capabilities.resources as { subscribe?: boolean }).subscribe)
                ? { subscribe: true }
                : {}),
            },
          }
        : {}),
      ...(this.#with("prompts").length > 0 ? { prompts: { listChanged: true } } : {}),
      ...(this.#with("completions").length > 0 ? { completions: {} } : {}),
    };
  }

  /** With --expose, the server's own instructions, checked as its results are (withheld: none). */
  instructions(): string | undefined {
    const s = this.deps.expose === undefined ? undefined : this.servers()[0];
    return s && typeof s.info.instructions === "string"
      ? this.#clients.shown(s.spec, s.info.instructions, "the instructions")
      : undefined;
  }

  attach(client: RelayClient): () => void {
    this.#clients.all.add(client);
    return () => {
      this.#clients.all.delete(client);
      const asking: Asking = { signal: new AbortController().signal, peer: () => ({ owner: client }) };
      for (const served of client.subscriptions) void this.unsubscribe(client, served, asking);
    };
  }

  /** The pipeline entry of one method on one server (made once). */
  #entry(spec: RemoteSpec, method: string): Entry {
    const key = `${spec.name}\0${method}`;
    let e = this.#entries.get(key);
    if (!e) this.#entries.set(key, (e = relayEntry(spec, method, this.deps.sources, this.#clients.wire)));
    return e;
  }

  /** Runs one request on one server through the pipeline, answered as the server answered or as an error. */
  async #relay(spec: RemoteSpec, method: string, params: Record<string, unknown>, asking: Asking): Promise<Relayed> {
    return relayedOf(await this.deps.calls.callEntry(this.#entry(spec, method), params, asking));
  }

  /**
   * A log message `server` sent during a request of `client`'s, as that client may see it: at its
   * level when it set one (a client that set none sees its own requests' lines), checked.
   */
  logFor(client: RelayClient, server: string, params: Record<string, unknown>): Record<string, unknown> | undefined {
    return this.#clients.logFor(client, server, params);
  }

  /** resources/list, merged across servers and paginated here. */
  async listResources(cursor: unknown, asking: Asking): Promise<Relayed> {
    const all = await this.#collect("resources/list", "resources", asking);
    if (!all.ok) return all;
    this.#routes.listed(
      new Map(
        [...all.items].map(([server, items]) => [server, items.map((r) => String((r as { uri?: unknown }).uri))]),
      ),
    );
    const served = [...all.items].flatMap(([server, items]) =>
      items.map((r) => ({ ...(r as object), uri: this.#routes.served(server, String((r as { uri?: unknown }).uri)) })),
    );
    return page(served, "resources", cursor);
  }

  async listTemplates(cursor: unknown, asking: Asking): Promise<Relayed> {
    const all = await this.#collect("resources/templates/list", "resourceTemplates", asking);
    if (!all.ok) return all;
    this.#routes.templatesListed(
      new Map(
        [...all.items].map(([server, items]) => [
          server,
          items.map((t) => String((t as { uriTemplate?: unknown }).uriTemplate)),
        ]),
      ),
    );
    return page([...all.items.values()].flat(), "resourceTemplates", cursor);
  }

  async listPrompts(cursor: unknown, asking: Asking): Promise<Relayed> {
    const all = await this.#collect("prompts/list", "prompts", asking);
    if (!all.ok) return all;
    const exposed = this.deps.expose !== undefined;
    return page(
      [...all.items].flatMap(([server, items]) =>
        items.map((p) => ({
          ...(p as object),
          name: servedPrompt(server, String((p as { name?: unknown }).name), exposed),
        })),
      ),
      "prompts",
      cursor,
    );
  }

  /**
   * Every page of one list method from each server that offers `cap`, in the servers' order. A
   * server that does not have the method (it answers -32601, as one without templates does) has
   * nothing to add: the others' items are served. Any other error fails the list.
   */
  async #collect(
    method: string,
    key: string,
    asking: Asking,
  ): Promise<{ ok: true; items: Map<string, unknown[]> } | (Relayed & { ok: false })> {
    const items = new Map<string, unknown[]>();
    for (const { spec } of this.#with(key === "prompts" ? "prompts" : "resources")) {
      const got: unknown[] = [];
      let next: string | undefined;
      for (let i = 0; i < MAX_PAGES; i++) {
        const r = await this.#relay(spec, method, next ? { cursor: next } : {}, asking);
        if (!r.ok && r.code === METHOD_NOT_FOUND) break;
        if (!r.ok) return r;
        const list = r.result[key];
        if (Array.isArray(list)) got.push(...list);
        next = typeof r.result.nextCursor === "string" && r.result.nextCursor !== "" ? r.result.nextCursor : undefined;
        if (!next) break;
      }
      items.set(spec.name, got);
    }
    return { ok: true, items };
  }

  /** The server and its own URI behind a served URI, from what the servers' lists said (relay-routes.ts). */
  #resourceOwner(served: string): { spec: RemoteSpec; uri: string } | null {
    const servers = this.#with("resources").map((s) => s.spec);
    const route = this.#routes.owner(
      served,
      servers.map((s) => s.name),
    );
    const spec = route && servers.find((s) => s.name === route.server);
    return spec ? { spec, uri: route.uri } : null;
  }

  /**
   * The owner of a served URI. One no list has named yet (a client's first request may be a read
   * of a URI it knew before this serve, or made from a template) is looked for in the servers'
   * own lists, asked for now as a client's resources/list and templates/list would be. The read
   * itself is never sent to one server after another until one has it: it would hand a URI (and
   * whatever it carries) to servers that never claimed it, and the first that answers for any URI
   * (a catch-all template) would take reads meant for another. Unknown after that: the refusal
   * says why (several servers list it: which forms name one), or the list's own failure.
   */
  async #owner(served: string, asking: Asking): Promise<{ spec: RemoteSpec; uri: string } | Relayed> {
    const owner = this.#resourceOwner(served);
    if (owner || this.#routes.sharedBy(served).length > 0) return owner ?? this.#unrouted(served);
    const [listed, templates] = await Promise.all([
      this.listResources(undefined, asking),
      this.listTemplates(undefined, asking),
    ]);
    const failed = [listed, templates].find((r) => !r.ok);
    return this.#resourceOwner(served) ?? failed ?? this.#unrouted(served);
  }

  /** Why no server takes a served URI. */
  #unrouted(served: string): Relayed {
    const shared = this.#routes.sharedBy(served);
    if (shared.length === 0) return unknownResource(served);
    return {
      ok: false,
      code: -32002,
      message:
        `no resource ${JSON.stringify(served)} of one server: ${shared.length} servers list it; read it as ` +
        `${shared.map((u) => JSON.stringify(u)).join(" or ")}`,
    };
  }

  async read(params: Record<string, unknown>, asking: Asking): Promise<Relayed> {
    const served = String(params.uri);
    const owner = await this.#owner(served, asking);
    if ("ok" in owner) return owner;
    const r = await this.#relay(owner.spec, "resources/read", { ...params, uri: owner.uri }, asking);
    if (!r.ok || owner.uri === served) return r;
    const contents = Array.isArray(r.result.contents)
      ? r.result.contents.map((c) =>
          (c as { uri?: unknown }).uri === owner.uri ? { ...(c as object), uri: served } : c,
        )
      : r.result.contents;
    return { ok: true, result: { ...r.result, contents } };
  }

  async subscribe(client: RelayClient, params: Record<string, unknown>, asking: Asking): Promise<Relayed> {
    const served = String(params.uri);
    const owner = await this.#owner(served, asking);
    if ("ok" in owner) return owner;
    const key = `${owner.spec.name}\0${owner.uri}`;
    if (!client.subscriptions.has(served)) {
      if ((this.#upstream.get(key) ?? 0) === 0) {
        const r = await this.#relay(owner.spec, "resources/subscribe", { ...params, uri: owner.uri }, asking);
        if (!r.ok) return r;
      }
      this.#upstream.set(key, (this.#upstream.get(key) ?? 0) + 1);
      client.subscriptions.add(served);
    }
    return { ok: true, result: {} };
  }

  async unsubscribe(client: RelayClient, served: string, asking: Asking): Promise<Relayed> {
    const owner = this.#resourceOwner(served);
    if (!owner || !client.subscriptions.delete(served)) return { ok: true, result: {} };
    const key = `${owner.spec.name}\0${owner.uri}`;
    const left = (this.#upstream.get(key) ?? 1) - 1;
    if (left > 0) this.#upstream.set(key, left);
    else {
      this.#upstream.delete(key);
      const r = await this.#relay(owner.spec, "resources/unsubscribe", { uri: owner.uri }, asking);
      if (!r.ok) return r;
    }
    return { ok: true, result: {} };
  }

  async getPrompt(params: Record<string, unknown>, asking: Asking): Promise<Relayed> {
    const servers = this.#with("prompts").map((s) => s.spec.name);
    const owner = promptOwner(String(params.name), servers, this.deps.expose !== undefined);
    const spec = owner && this.deps.sources.spec(owner.server);
    if (!owner || !spec)
      return {
        ok: false,
        code: -32602,
        message: `no prompt named ${JSON.stringify(params.name)}; prompts/list lists them`,
      };
    return this.#relay(spec, "prompts/get", { ...params, name: owner.name }, asking);
  }

  async complete(params: Record<string, unknown>, asking: Asking): Promise<Relayed> {
    const ref = (params.ref ?? {}) as { type?: unknown; name?: unknown; uri?: unknown };
    if (ref.type === "ref/prompt") {
      const owner = promptOwner(
        String(ref.name),
        this.#with("completions").map((s) => s.spec.name),
        this.deps.expose !== undefined,
      );
      const spec = owner && this.deps.sources.spec(owner.server);
      if (!owner || !spec) return { ok: false, code: -32602, message: `no prompt named ${JSON.stringify(ref.name)}` };
      return this.#relay(spec, "completion/complete", { ...params, ref: { ...ref, name: owner.name } }, asking);
    }
    const uri = String(ref.uri);
    const completing = this.#with("completions");
    const owning = () => completing.find((s) => this.#routes.templatesOf(s.spec.name).includes(uri))?.spec;
    // A template no list has named yet: the servers' templates are asked for now, as for a read.
    if (!owning() && completing.length > 1) await this.listTemplates(undefined, asking);
    const spec = owning() ?? (completing.length === 1 ? completing[0]!.spec : undefined);
    if (!spec)
      return {
        ok: false,
        code: -32602,
        message: `no resource template ${JSON.stringify(uri)}; resources/templates/list lists them`,
      };
    return this.#relay(spec, "completion/complete", params, asking);
  }

  /** logging/setLevel: kept for this client, and forwarded to every relayed server that logs. */
  async setLevel(client: RelayClient, level: string, asking: Asking): Promise<void> {
    client.level = level;
    await Promise.all(
      this.#with("logging").map(({ spec }) =>
        this.#relay(spec, "logging/setLevel", { level }, asking).catch(() => undefined),
      ),
    );
  }
}
