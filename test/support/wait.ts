// Waiting in tests: a condition is polled until it holds, within a bound generous enough for a
// loaded machine (timers fire late, children start late), never a fixed sleep standing in for it.
// Running out of the bound fails the test, naming what was awaited. A fixed sleep is left only
// where a test shows that something does NOT happen (nothing can be awaited there).

/** How long a condition may take to come true before the test fails: well past any healthy run. */
export const WAIT_MS = 15_000;

/** Polls `cond` every `everyMs` until it holds; throws `timed out waiting for WHAT` after `ms`. */
export async function waitFor(
  what: string,
  cond: () => boolean | Promise<boolean>,
  ms = WAIT_MS,
  everyMs = 10,
): Promise<void> {
  const end = performance.now() + ms;
  while (!(await cond())) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what} (${ms} ms)`);
    await Bun.sleep(everyMs);
  }
}

/** Polls `cond` until it holds or `ms` pass: whether it holds (for a test that asserts it itself). */
export async function eventually(cond: () => boolean | Promise<boolean>, ms = WAIT_MS, everyMs = 10): Promise<boolean> {
  const end = performance.now() + ms;
  while (!(await cond())) {
    if (performance.now() > end) return false;
    await Bun.sleep(everyMs);
  }
  return true;
}
