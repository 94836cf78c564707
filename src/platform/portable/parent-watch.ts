// A parent's death where no parent-death signal can be asked for (no prctl): the process is
// re-parented when its parent dies, so its parent pid changes. Polled: a guardian notices within
// `everyMs` of toolgate's death, where Linux's PR_SET_PDEATHSIG tells it at once.

/**
 * Calls `gone` once, when `ppid()` is no longer `parent`; returns the stop. The timer never keeps the process alive.
 */
export function watchParent(
  parent: number,
  gone: () => void,
  ppid: () => number = () => process.ppid,
  everyMs = 100,
): () => void {
  const timer = setInterval(() => {
    if (ppid() === parent) return;
    clearInterval(timer);
    gone();
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
