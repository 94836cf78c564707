// The clients the relay serves, and what of an upstream server's own messages reaches them. A
// server's notifications go to the clients they belong to: an update to the clients subscribed to
// that resource, list changes to every client, a log message sent during a request to the client
// that asked (each relayed request carries its client as owner: mcp/peer.ts decides), one sent
// outside any request to the clients that set a level. One whose owner is unclear is dropped and
// counted. Whatever a server sends outside a result has its secrets redacted and is withheld where
// the output boundary would withhold a result.
import { checkBoundary } from "../boundary/boundary.ts";
import { redactValue } from "../boundary/redact.ts";
import type { Connection } from "../mcp/connect.ts";
import type { RemoteSpec } from "../servers/specs.ts";
import type { RelaySources } from "./relay-entry.ts";
import { admits } from "./relay-names.ts";
import type { ResourceRoutes } from "./relay-routes.ts";

/** One connected client, as the relay sends to it; the owner of the requests it makes. */
export interface RelayClient {
  notify(method: string, params?: Record<string, unknown>): void;
  readonly subscriptions: Set<string>;
  /** The level this client set with logging/setLevel, if any. */
  level: string | undefined;
}

export interface RelayClientsDeps {
  readonly sources: Pick<RelaySources, "spec" | "secretsOf">;
  /** Where a server's own resource URIs are served (an update names the served URI). */
  readonly routes: Pick<ResourceRoutes, "served">;
  readonly operator: (line: string) => void;
}

export class RelayClients {
  readonly all = new Set<RelayClient>();
  readonly #wired = new WeakSet<Connection>();
  /** Log messages dropped as nobody's to see, by server. */
  readonly #dropped = new Map<string, number>();

  constructor(private readonly deps: RelayClientsDeps) {}

  /**
   * A server's notifications outside a call, on `conn` (each connection once): routed to the clients they belong to.
   */
  readonly wire = (spec: RemoteSpec, conn: Connection): void => {
    if (this.#wired.has(conn)) return;
    this.#wired.add(conn);
    const dropped = () => {
      const n = (this.#dropped.get(spec.name) ?? 0) + 1;
      this.#dropped.set(spec.name, n);
      // Each one counted; the operator hears of the 1st, 2nd, 4th, 8th, ...: a busy server cannot fill stderr.
      if ((n & (n - 1)) === 0)
        this.deps.operator(
          `toolgate: MCP server "${spec.name}": a log message was dropped: requests of several clients were ` +
            `in flight and nothing tied it to one (${n} so far)`,
        );
    };
    conn.session.onNotification((method, params) => {
      if (method === "notifications/resources/updated" && typeof params.uri === "string") {
        const served = this.deps.routes.served(spec.name, params.uri);
        // The URI alone: anything else the server put beside it would reach the client unchecked.
        for (const c of this.all) if (c.subscriptions.has(served)) c.notify(method, { uri: served });
      } else if (method === "notifications/resources/list_changed" || method === "notifications/prompts/list_changed") {
        for (const c of this.all) c.notify(method);
      } else if (method === "notifications/message") {
        // Sent while no request was in flight: to the clients that asked for log messages.
        const checked = this.checkedLog(spec, params);
        if (checked)
          for (const c of this.all)
            if (c.level !== undefined && admits(c.level, checked.level)) c.notify(method, checked);
      }
    }, dropped);
  };

  /** A server's log message as a client may see it: secrets redacted, dropped when the boundary would withhold it. */
  checkedLog(spec: RemoteSpec, params: Record<string, unknown>): Record<string, unknown> | undefined {
    return this.shown(spec, params, "a log message");
  }

  /**
   * What a server sent outside a result, as a client may see it: its secrets redacted; withheld (the operator hears
   * why) where the boundary would.
   */
  shown<T>(spec: RemoteSpec, value: T, what: string): T | undefined {
    const shown = redactValue(value, this.deps.sources.secretsOf(spec)) as T;
    const v = checkBoundary(shown, { localPaths: spec.localPathsOff === undefined });
    if (!v) return shown;
    this.deps.operator(`toolgate: MCP server "${spec.name}": ${what} withheld (rule ${v.rule} at ${v.where})`);
    return undefined;
  }

  /**
   * A log message `server` sent during a request of `client`'s, as that client may see it: at its
   * level when it set one (a client that set none sees its own requests' lines), checked.
   */
  logFor(client: RelayClient, server: string, params: Record<string, unknown>): Record<string, unknown> | undefined {
    if (client.level !== undefined && !admits(client.level, params.level)) return undefined;
    const spec = this.deps.sources.spec(server);
    return spec ? this.checkedLog(spec, params) : undefined;
  }
}
