// toolgate as a child subreaper (Linux prctl PR_SET_CHILD_SUBREAPER): a process that leaves its
// session and group and loses its parent (`(setsid cmd &)`) is re-parented to toolgate instead
// of init, so the tree can still find it by its parent (docs/security.md: with `sandbox: off`
// nothing outlives the call). Loaded on the first unsandboxed launch only: bun:ffi costs ~4 ms.
import { openLibc } from "../fs/libc.ts";

const PR_SET_CHILD_SUBREAPER = 36;
const WNOHANG = 1;

interface Libc {
  prctl(option: number, arg: number): number;
  waitpid(pid: number): number;
}

let libc: Promise<Libc | null> | undefined;
let active = false;
/** Whether this process is a subreaper now. */
export const subreaping = () => active;
/** Pids directly under toolgate that it spawned itself (launched runs, servers): never orphans. */
export const ownChildren = new Set<number>();

async function load(): Promise<Libc | null> {
  const opened = await openLibc({
    prctl: { args: ["i32", "u64", "u64", "u64", "u64"], returns: "i32" },
    waitpid: { args: ["i32", "ptr", "i32"], returns: "i32" },
  });
  if (!opened) return null;
  const { lib } = opened;
  return {
    prctl: (option, arg) => lib.symbols.prctl(option, arg, 0, 0, 0) as number,
    waitpid: (pid) => lib.symbols.waitpid(pid, null, WNOHANG) as number,
  };
}

/** Makes this process a subreaper (once); false where that cannot be had (no Linux, no libc found). */
export async function becomeSubreaper(): Promise<boolean> {
  libc ??= load().then((l) => (l && l.prctl(PR_SET_CHILD_SUBREAPER, 1) === 0 ? l : null));
  active = (await libc) !== null;
  return active;
}

/** Collects the exit status of adopted orphans that ended (they are zombies of toolgate until then). */
export async function reap(pids: readonly number[]): Promise<void> {
  const l = libc ? await libc : null;
  if (!l) return;
  for (const pid of pids) if (!ownChildren.has(pid)) l.waitpid(pid);
}
