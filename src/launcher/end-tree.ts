// Ending a process tree: TERM to the group and every tracked member, KILL after the grace to
// whatever is left (repeated for processes forked in between), every wait bounded.
import type { ProcessTree } from "./proc-tree.ts";

const POLL_MS = 10;
/** How long KILL may take to land (a process in uninterruptible sleep) before giving up. */
const KILL_WAIT_MS = 2_000;
const KILL_ROUNDS = 5;

export interface TreeEnded {
  /** Live members when TERM was sent. */
  readonly signalled: number;
  /** Members still alive when the launcher gave up. */
  readonly survivors: readonly number[];
}

export async function endTree(tree: ProcessTree, graceMs: number): Promise<TreeEnded> {
  const signalled = tree.signal("SIGTERM").length;
  if (await waitUntil(() => !tree.anyLive(), graceMs)) return { signalled, survivors: [] };
  for (let round = 0; round < KILL_ROUNDS; round++) {
    tree.signal("SIGKILL");
    if (await waitUntil(() => !tree.anyLive(), KILL_WAIT_MS / KILL_ROUNDS)) return { signalled, survivors: [] };
  }
  return { signalled, survivors: tree.sample().map((s) => s.pid) };
}

/** Polls `done` every `pollMs` until it holds (true) or `ms` passed (false). */
export async function waitUntil(done: () => boolean, ms: number, pollMs = POLL_MS): Promise<boolean> {
  const end = performance.now() + ms;
  for (;;) {
    if (done()) return true;
    const left = end - performance.now();
    if (left <= 0) return false;
    await Bun.sleep(Math.min(pollMs, left));
  }
}
