// Which upstream server a served resource URI belongs to (relay.ts asks): what the servers' own
// lists said, kept for the life of one serve, so any client's resources/list or templates/list
// (or the relay's own, on a miss) routes every client's reads, subscriptions and completions.
// Only a server's own list claims a URI for it: a URI two servers list belongs to neither until
// the client names one (the namespaced form), and a URI no list names goes to the first server
// whose template it expands, or to the only server that has resources.
import { matchesTemplate, parseNamespaced, servedUris } from "./relay-names.ts";

export interface Route {
  readonly server: string;
  /** The URI as that server knows it. */
  readonly uri: string;
}

export class ResourceRoutes {
  /** Served URI → its server and that server's own URI, from the last resources/list. */
  #uris = new Map<string, Route>();
  /** A URI several servers list → its namespaced forms, one a server. */
  #shared = new Map<string, string[]>();
  /** Each server's templates, from the last resources/templates/list; undefined until one. */
  #templates: Map<string, readonly string[]> | undefined;

  /** What a resources/list answered, server by server (every server that has resources). */
  listed(byServer: ReadonlyMap<string, readonly string[]>): void {
    this.#uris = servedUris(byServer);
    const shared = new Map<string, string[]>();
    for (const [served, route] of this.#uris)
      if (served !== route.uri) shared.set(route.uri, [...(shared.get(route.uri) ?? []), served]);
    this.#shared = shared;
  }

  /** What a resources/templates/list answered, server by server. */
  templatesListed(byServer: ReadonlyMap<string, readonly string[]>): void {
    this.#templates = new Map(byServer);
  }

  get templatesKnown(): boolean {
    return this.#templates !== undefined;
  }

  templatesOf(server: string): readonly string[] {
    return this.#templates?.get(server) ?? [];
  }

  /** The URI a client knows for a server's own URI (namespaced when two servers list it). */
  served(server: string, uri: string): string {
    for (const [served, o] of this.#uris) if (o.server === server && o.uri === uri) return served;
    return uri;
  }

  /** The namespaced forms of a URI several servers list; empty when at most one does. */
  sharedBy(uri: string): readonly string[] {
    return this.#shared.get(uri) ?? [];
  }

  /**
   * The server behind a served URI, among `servers` (those with resources, in order): namespaced,
   * listed, a template's expansion (the first server whose template matches), or the only server.
   * Null when none is known, and for a URI several servers list.
   */
  owner(served: string, servers: readonly string[]): Route | null {
    const known = parseNamespaced(served) ?? this.#uris.get(served);
    if (known) return servers.includes(known.server) ? known : null;
    if (this.#shared.has(served)) return null;
    for (const server of servers)
      if (this.templatesOf(server).some((t) => matchesTemplate(t, served))) return { server, uri: served };
    return servers.length === 1 ? { server: servers[0]!, uri: served } : null;
  }
}
