// Upstream connections that declare what one kind of client declared (`serve --expose`): a server
// offers a client what it can take (server-everything lists its sampling tool only to a client
// that declared sampling), so a client that declared less than toolgate's shared connection does
// gets a connection of its own kind, made on first use and shared by the clients that declared
// the same. Forgotten when lost (the next use connects again), ended at shutdown; not supervised:
// the server's tools are judged by the supervised shared connection (sources.ts).
import type { Connection, Declared } from "../mcp/connect.ts";
import type { RemoteSpec } from "./specs.ts";

export class ClientDeclared {
  readonly #live = new Map<string, { server: string; conn: Promise<Connection> }>();
  readonly #made = new WeakSet<Connection>();

  constructor(private readonly connect: (spec: RemoteSpec, declared: Declared) => Promise<Connection>) {}

  connection(spec: RemoteSpec, declared: Declared): Promise<Connection> {
    const key = `${spec.name}\0${declared.elicitation}\0${declared.sampling}`;
    const had = this.#live.get(key);
    if (had) return had.conn;
    const conn = this.connect(spec, declared);
    const forget = () => void (this.#live.get(key)?.conn === conn && this.#live.delete(key));
    conn.then((c) => (this.#made.add(c), void c.lost?.then(forget)), forget);
    this.#live.set(key, { server: spec.name, conn });
    return conn;
  }

  /** Whether `conn` is one of these (its listing is what that kind of client may use). */
  has(conn: Connection): boolean {
    return this.#made.has(conn);
  }

  /** Every one made and not lost, by server name; none is kept after. */
  takeAll(): [string, Promise<Connection>][] {
    const all = [...this.#live.values()].map(({ server, conn }): [string, Promise<Connection>] => [server, conn]);
    this.#live.clear();
    return all;
  }
}
