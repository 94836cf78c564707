// The platform layer's one choice: which implementation of each facility a process uses, made
// from process.platform (hostPlatform) or for any platform a test names (platformFor). The only
// module that reaches platform/linux/: on another platform nothing Linux-only is loaded, opened or
// read (no dlopen of libc.so.6, no /proc, no prctl), and what needs it is absent (null).
import { existsSync } from "node:fs";
import { facilitiesFor, type Facilities } from "./facilities.ts";
export { sandboxUnavailable, type Facilities } from "./facilities.ts";
import { loadOpenBeneath } from "./linux/openat2.ts";
import { loadPeerChecks } from "./linux/peer.ts";
import { loadPrctl } from "./linux/prctl.ts";
import { boundSockets, procFdPaths, procTable, sysctl as linuxSysctl } from "./linux/procfs.ts";
import { openSeccomp } from "./linux/seccomp.ts";
import { portableFdPaths } from "./portable/fd-paths.ts";
import type { FdPaths, OpenBeneath, PeerChecks, Prctl, ProcessTable, SeccompSource } from "./types.ts";

export interface Platform extends Facilities {
  /** The process table; null without /proc (a tree is then its process group, or its root alone without groups). */
  readonly processes: ProcessTable | null;
  /** What an open descriptor is, by path (Linux: /proc/self/fd; elsewhere: where it was verified). */
  readonly fds: FdPaths;
  /** prctl(2) and waitpid(2), loaded on first use; null where there are none. */
  prctl(): Promise<Prctl | null>;
  /** openat2(2) below a folder, loaded on first use; null where the platform or the kernel lacks it. */
  openBeneath(flags: number): Promise<OpenBeneath | null>;
  /** A Unix socket peer's credentials and namespaces, loaded on first use; null where they cannot be read. */
  peerChecks(): Promise<PeerChecks | null>;
  /** The real paths of the Unix sockets bound on the host now (what a sandbox must cover). */
  boundSockets(): string[];
  /** The seccomp program bubblewrap loads; null where there is no filter for this platform and architecture. */
  readonly seccompFilter: SeccompSource | null;
}

const none = () => Promise.resolve(null);

export function platformFor(os: string, arch: string): Platform {
  const f = facilitiesFor(os, arch);
  if (os !== "linux") {
    return {
      ...f,
      processes: null,
      fds: portableFdPaths(),
      prctl: none,
      openBeneath: none,
      peerChecks: none,
      boundSockets: () => [],
      seccompFilter: null,
    };
  }
  // A container may have no procfs mounted: then a tree is its process group, and a descriptor is
  // where it was verified to be, as elsewhere.
  let mounted: boolean | undefined;
  const procfs = () => (mounted ??= existsSync("/proc/self/stat"));
  let portable: FdPaths | undefined;
  return {
    ...f,
    get processes() {
      return procfs() ? procTable : null;
    },
    get fds() {
      return procfs() ? procFdPaths : (portable ??= portableFdPaths());
    },
    prctl: loadPrctl,
    openBeneath: loadOpenBeneath,
    peerChecks: loadPeerChecks,
    boundSockets,
    seccompFilter: f.seccomp ? { open: openSeccomp } : null,
  };
}

let host: Platform | undefined;

/** This process's platform, chosen once (nothing is read to choose it). */
/** A kernel setting under /proc/sys on Linux (`toolgate doctor`); undefined elsewhere, or when it cannot be read. */
export const sysctl = (name: string): string | undefined =>
  process.platform === "linux" ? linuxSysctl(name) : undefined;

export const hostPlatform = (): Platform => (host ??= platformFor(process.platform, process.arch));

/**
 * For a test process that runs another platform's code paths on this machine (test/fixtures/platform):
 * called before anything asks. Nothing toolgate runs calls it: no flag, variable or file chooses it.
 */
export function runAsPlatform(p: Platform): void {
  host = p;
}
