// A one-shot process's servers, shut down off its caller's path: once the result is out, the
// children go to a detached reaper (`toolgate __reap`, the same executable, its own session,
// stdin /dev/null) that carries out the shutdown — stdin closed, the grace, the tree killed —
// and sends the DELETE that ends each HTTP server's session (src/http/later.ts).
import type { LaterRequest } from "../http/later.ts";
import { endTree, waitUntil } from "./end-tree.ts";
import { isLive, ProcessTree, readStat, type TreeSnapshot } from "./proc-tree.ts";
import { selfArgv, startDetached } from "./detached.ts";
import { withoutBunSwitches } from "./bun-switches.ts";
import { spawnChild } from "./spawn.ts";
import { ownChildren } from "./subreaper.ts";

/** One server handed over: its stdin is already closed (or closes as the caller exits). */
export interface ReapOrder {
  readonly tree: TreeSnapshot;
  /** Until when (Date.now()) it may leave by itself: the grace counted from the hand-over. */
  readonly until: number;
}

const POLL_MS = 50;

/** The hidden subcommand that runs reap(); not listed by --help. */
export const REAP_COMMAND = "__reap";

/** The reaper's requests: in its environment (readable by this user only), as they may carry credentials. */
export const REAP_REQUESTS_VAR = "TOOLGATE_REAP_REQUESTS";

/**
 * Starts the reaper for `orders` and `requests` and returns at once; false when it could not be
 * started (the caller then reaps in the foreground: nothing is ever left running). `stderr`: it
 * writes to this process's stderr (only where no reader waits for it: a terminal, a file).
 */
export function reapLater(
  orders: readonly ReapOrder[],
  requests: readonly LaterRequest[] = [],
  more: { readonly env?: Readonly<Record<string, string>>; readonly stderr?: boolean } = {},
): boolean {
  if (orders.length === 0 && requests.length === 0 && more.env === undefined) return true;
  try {
    // cwd "/": the reaper must not hold a temporary workspace; no other environment than what it is
    // handed (a one-shot call's spans and the exporter's variables: src/telemetry/telemetry.ts).
    const env = { ...(requests.length > 0 ? { [REAP_REQUESTS_VAR]: JSON.stringify(requests) } : {}), ...more.env };
    startDetached([...selfArgv(), REAP_COMMAND, JSON.stringify(orders)], {
      cwd: "/",
      env,
      ...(more.stderr ? { stderr: "inherit" as const } : {}),
    });
    return true;
  } catch {
    return false;
  }
}

/** The started waiters: this process holds each one's stdin's other end until it exits (kept, never collected). */
const waiters = new Set<Bun.Subprocess<"pipe", "ignore", "ignore" | "inherit">>();
/** A waiter still here this long after the hand-over lets go anyway (its caller is slow to exit). */
const WAIT_AT_MOST_MS = 300;

/**
 * Like reapLater with `env` alone (a one-shot call's spans), but the reaper starts once this process
 * has exited: a shell blocks (no CPU) reading a pipe this process holds, and executes the reaper when
 * the pipe closes, so the reaper's own start-up never shares the CPU with this process's last
 * milliseconds. 300 ms after the hand-over it starts anyway. False when nothing could be started.
 */
export function reapAfterExit(env: Readonly<Record<string, string>>, stderr: boolean): boolean {
  try {
    const argv = ["/bin/sh", "-c", 'read _; exec "$@" </dev/null', "sh", ...selfArgv(), REAP_COMMAND, "[]"];
    const p = spawnChild({
      argv,
      cwd: "/",
      env: withoutBunSwitches(env),
      stdio: ["pipe", "ignore", stderr ? "inherit" : "ignore"],
      session: "new",
    });
    p.unref();
    ownChildren.add(p.pid);
    waiters.add(p);
    setTimeout(() => void p.stdin.end(), WAIT_AT_MOST_MS).unref();
    return true;
  } catch {
    return reapLater([], [], { env, stderr });
  }
}

/**
 * Waits each tree out until its grace ends, then ends what is left of it; sends each request (under the URL policy).
 */
export async function reap(
  orders: readonly ReapOrder[],
  requests: readonly LaterRequest[] = [],
  now: () => number = Date.now,
): Promise<void> {
  const sending =
    requests.length > 0
      ? import("../http/later.ts").then(({ sendLater }) => Promise.all(requests.map((r) => sendLater(r))))
      : undefined;
  await Promise.all([
    sending,
    ...orders.map(async (o) => {
      const tree = ProcessTree.resume(o.tree);
      // While the root runs, the tree does: one small read; a scan of /proc only once it is gone.
      const start = o.tree.known.find(([pid]) => pid === o.tree.root)?.[1];
      const root = () => {
        const s = readStat(o.tree.root);
        return s !== null && s.start === start && isLive(s);
      };
      // Nobody waits on this process: a coarse poll is enough, and light on a loaded machine.
      if (!(await waitUntil(() => !root() && !tree.anyLive(), Math.max(0, o.until - now()), POLL_MS)))
        await endTree(tree, 0);
    }),
  ]);
}

/** `toolgate __reap ORDERS_JSON` (requests in REAP_REQUESTS_VAR): the reaper's whole life. */
export async function runReaper(
  arg: string | undefined,
  env: Readonly<Record<string, string | undefined>> = {},
): Promise<number> {
  let orders: ReapOrder[];
  let requests: LaterRequest[];
  try {
    orders = JSON.parse(arg ?? "") as ReapOrder[];
    requests = JSON.parse(env[REAP_REQUESTS_VAR] ?? "[]") as LaterRequest[];
    if (!Array.isArray(orders) || !Array.isArray(requests)) throw new Error("not a list");
  } catch {
    process.stderr.write("toolgate: __reap is internal: it takes the orders toolgate gives it\n");
    return 2;
  }
  await reap(orders, requests);
  return 0;
}
