// Live MCP/Las connections a session keeps across forwarded calls. Each call's RemoteSources still
// checks its own permissions before it is handed one; a connection whose child is gone leaves the
// pool, so the next use starts the server again (and re-checks its tools, as a cold start does).
import type { Connection } from "../mcp/connect.ts";
import type { RemoteSpec } from "./specs.ts";
import { fingerprint } from "./cache.ts";

export class ConnectionPool {
  readonly #live = new Map<string, { name: string; conn: Connection }>();
  #closed = false;

  /** The same declaration started the same way (version, sandbox network): only then is a child shared. */
  static key(spec: RemoteSpec, network: boolean): string {
    return `${fingerprint([spec], "pool")}:${network ? 1 : 0}`;
  }

  get(key: string): Connection | undefined {
    return this.#live.get(key)?.conn;
  }

  /** Keeps `conn` under `key` until it is lost; false when the pool is closed (the caller closes it). */
  keep(key: string, name: string, conn: Connection): boolean {
    if (this.#closed) return false;
    this.#live.set(key, { name, conn });
    void conn.lost?.then(() => {
      if (this.#live.get(key)?.conn === conn) this.#live.delete(key);
    });
    return true;
  }

  owns(conn: Connection): boolean {
    return [...this.#live.values()].some((x) => x.conn === conn);
  }

  alive(): { name: string; pid: number | null }[] {
    return [...this.#live.values()].map((x) => ({ name: x.name, pid: x.conn.child?.pid ?? null }));
  }

  /** The shutdown for every kept child: stdin closed, grace, kill. */
  async close(graceMs: number): Promise<void> {
    this.#closed = true;
    const all = [...this.#live.values()];
    this.#live.clear();
    await Promise.all(all.map((x) => x.conn.close(graceMs).catch(() => undefined)));
  }
}
