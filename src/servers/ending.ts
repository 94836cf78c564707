// The shutdown of the connections one process made (RemoteSources.shutdown): each child's
// stdin closed, its grace, then kill; or, for a one-shot process whose result is out, handed to a
// detached reaper (src/launcher/reaper.ts) so the caller does not wait out the children.
import type { LaterRequest } from "../http/later.ts";
import { reap, reapLater, type ReapOrder } from "../launcher/reaper.ts";
import type { Connection } from "../mcp/connect.ts";
import type { ConnectionPool } from "./pool.ts";
import type { RemoteSpec } from "./specs.ts";

/** `"children"`: only the children go to the reaper; an HTTP server's session is ended here. */
export async function endConnections(
  all: readonly (readonly [string, Promise<Connection>])[],
  o: { specs: readonly RemoteSpec[]; pool?: ConnectionPool | undefined; handOff?: boolean | "children" },
): Promise<void> {
  const orders: ReapOrder[] = [];
  const requests: LaterRequest[] = [];
  await Promise.all(
    all.map(async ([name, p]) => {
      const spec = o.specs.find((s) => s.name === name);
      try {
        const conn = await p;
        // A session's pool keeps its children beyond this call.
        if (o.pool?.owns(conn)) return;
        if (o.handOff && conn.handOff) {
          const order = conn.handOff(spec?.graceMs ?? 0);
          if (order) orders.push(order);
          return;
        }
        // An HTTP session's DELETE goes with the reaper too; this side only lets go.
        const request = o.handOff === true ? await conn.endLater?.() : undefined;
        if (request) requests.push(request);
        await conn.close(spec?.graceMs ?? 0);
      } catch {
        // a connection that never came up has nothing to close
      }
    }),
  );
  // No reaper could be started: the shutdown happens here, as before.
  if (!reapLater(orders, requests)) await reap(orders, requests);
}
