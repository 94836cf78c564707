// A one-shot process's servers, shut down off its caller's path: once the result is out, the
// children go to a detached reaper (`toolgate __reap`, the same executable, its own session,
// stdin /dev/null) that carries out the seed's order — stdin closed, the grace, the tree killed.
import { endTree, waitUntil } from "./end-tree.ts";
import { isLive, ProcessTree, readStat, type TreeSnapshot } from "./proc-tree.ts";
import { selfArgv, startDetached } from "./detached.ts";

/** One server handed over: its stdin is already closed (or closes as the caller exits). */
export interface ReapOrder {
  readonly tree: TreeSnapshot;
  /** Until when (Date.now()) it may leave by itself: the grace counted from the hand-over. */
  readonly until: number;
}

const POLL_MS = 50;

/** The hidden subcommand that runs reap(); not listed by --help. */
export const REAP_COMMAND = "__reap";

/**
 * Starts the reaper for `orders` and returns at once; false when it could not be started (the
 * caller then reaps in the foreground: nothing is ever left running).
 */
export function reapLater(orders: readonly ReapOrder[]): boolean {
  if (orders.length === 0) return true;
  try {
    // cwd "/": the reaper must not hold a temporary workspace; no environment: it needs none.
    startDetached([...selfArgv(), REAP_COMMAND, JSON.stringify(orders)], { cwd: "/", env: {} });
    return true;
  } catch {
    return false;
  }
}

/** Waits each tree out until its grace ends, then ends what is left of it. */
export async function reap(orders: readonly ReapOrder[], now: () => number = Date.now): Promise<void> {
  await Promise.all(
    orders.map(async (o) => {
      const tree = ProcessTree.resume(o.tree);
      // While the root runs, the tree does: one small read; a scan of /proc only once it is gone.
      const start = o.tree.known.find(([pid]) => pid === o.tree.root)?.[1];
      const root = () => {
        const s = readStat(o.tree.root);
        return s !== null && s.start === start && isLive(s);
      };
      // Nobody waits on this process: a coarse poll is enough, and light on a loaded machine.
      if (!(await waitUntil(() => !root() && !tree.anyLive(), Math.max(0, o.until - now()), POLL_MS))) await endTree(tree, 0);
    }),
  );
}

/** `toolgate __reap ORDERS_JSON`: the reaper's whole life. */
export async function runReaper(arg: string | undefined): Promise<number> {
  let orders: ReapOrder[];
  try {
    orders = JSON.parse(arg ?? "") as ReapOrder[];
    if (!Array.isArray(orders)) throw new Error("not a list");
  } catch {
    process.stderr.write("toolgate: __reap is internal: it takes the orders toolgate gives it\n");
    return 2;
  }
  await reap(orders);
  return 0;
}
