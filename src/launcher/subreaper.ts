// toolgate as a child subreaper (Linux prctl PR_SET_CHILD_SUBREAPER): a process that leaves its
// session and group and loses its parent (`(setsid cmd &)`) is re-parented to toolgate instead
// of init, so the tree can still find it by its parent (docs/security.md: with `sandbox: off`
// nothing outlives the call). Loaded on the first unsandboxed launch only: bun:ffi costs ~4 ms.
// Elsewhere (no prctl) such an orphan is not found: docs/security.md, "Platforms".
import { hostPlatform } from "../platform/host.ts";
import type { Prctl } from "../platform/types.ts";

let prctl: Promise<Prctl | null> | undefined;
let active = false;
/** Whether this process is a subreaper now. */
export const subreaping = () => active;
/** Pids directly under toolgate that it spawned itself (launched runs, servers): never orphans. */
export const ownChildren = new Set<number>();

/** Makes this process a subreaper (once); false where that cannot be had (no Linux, no libc found). */
export async function becomeSubreaper(): Promise<boolean> {
  prctl ??= hostPlatform()
    .prctl()
    .then((p) => (p?.becomeSubreaper() ? p : null));
  active = (await prctl) !== null;
  return active;
}

/** Collects the exit status of adopted orphans that ended (they are zombies of toolgate until then). */
export async function reap(pids: readonly number[]): Promise<void> {
  const p = prctl ? await prctl : null;
  if (!p) return;
  for (const pid of pids) if (!ownChildren.has(pid)) p.reap(pid);
}
