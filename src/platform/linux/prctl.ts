// prctl(2) and waitpid(2) through the C library: toolgate (or a guardian) as a child subreaper,
// so an orphan of what it runs comes back to it instead of init, and a guardian's parent-death
// signal. Loaded on first use (bun:ffi costs ~4 ms), once per process.
import type { Prctl } from "../types.ts";
import { openLibc } from "./libc.ts";

const PR_SET_PDEATHSIG = 1;
const PR_SET_CHILD_SUBREAPER = 36;
const WNOHANG = 1;

let loaded: Promise<Prctl | null> | undefined;

export function loadPrctl(): Promise<Prctl | null> {
  return (loaded ??= load());
}

async function load(): Promise<Prctl | null> {
  const opened = await openLibc({
    prctl: { args: ["i32", "u64", "u64", "u64", "u64"], returns: "i32" },
    waitpid: { args: ["i32", "ptr", "i32"], returns: "i32" },
  });
  if (!opened) return null;
  const { prctl, waitpid } = opened.lib.symbols;
  return {
    becomeSubreaper: () => prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) === 0,
    parentDeathSignal: (signal) => prctl(PR_SET_PDEATHSIG, signal, 0, 0, 0) === 0,
    reap: (pid) => waitpid(pid, null, WNOHANG) as number,
  };
}
