// The platform layer's seams: what a facility does, whichever implementation (platform/linux/ or
// platform/portable/) host.ts hands out. Types only.

export interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  /** Start time in clock ticks since boot: with the pid, the identity of a process. */
  readonly start: number;
  readonly state: string;
}

/** The process table, read from /proc: absent (null) elsewhere, where a tree is only its process group. */
export interface ProcessTable {
  stat(pid: number): ProcStat | null;
  /** Every visible process; null when the table cannot be read. */
  scan(): ProcStat[] | null;
  /** Seconds since boot, in the clock `start` counts (ticks of 1/TICKS_PER_SECOND). */
  uptime(): number | null;
  readonly ticksPerSecond: number;
  /** The identities ("socket:[N]", "pipe:[N]") of a process's stdout and stderr. */
  outputIds(pid: number): string[];
  /** Processes other than this one holding any of `ids` open. */
  holdersOf(ids: readonly string[]): number[];
  /** A process's environment as the kernel shows it (NUL-separated); null when unreadable. */
  environ(pid: number): string | null;
}

/** What an open descriptor is, by path: where the kernel says it is (Linux), or where it was verified to be. */
export interface FdPaths {
  /** Whether open descriptor `fd` is the object at exactly `path` (a real path) now. */
  isAt(fd: number, path: string): boolean;
  /** Where `fd` is now, or null when that cannot be told. */
  pathOf(fd: number): string | null;
  /**
   * A path naming `name` inside the folder open as `dirFd`, for open, mkdir, link, rename,
   * unlink and readdir ("."). Throws an error whose code is "CHANGED" when the folder cannot be
   * placed (portable: it moved since it was verified).
   */
  inDir(dirFd: number, name: string): string;
  /**
   * Opens `name` inside the folder open as `dirFd` (O_NOFOLLOW added), as inDir places it; throws like openSync, or
   * "CHANGED".
   */
  openIn(dirFd: number, name: string, flags: number, mode?: number): number;
  /** A path by which another process opens the object `fd` holds (Linux: /proc/PID/fd/N), or null. */
  reopenPath(fd: number): string | null;
  /** Open flags that name an object without reading it (O_PATH on Linux) and never block. */
  readonly namingFlags: number;
}

/** Opens `rel` read-only (non-blocking) below the folder open as `dirFd`; the fd, or -1 for any refusal. */
export type OpenBeneath = (dirFd: number, rel: string) => number;

/** prctl(2) and waitpid(2) through the C library. */
export interface Prctl {
  /** PR_SET_CHILD_SUBREAPER: orphans below this process are re-parented to it; true when set. */
  becomeSubreaper(): boolean;
  /** PR_SET_PDEATHSIG: `signal` (a number) when the parent dies; true when set. */
  parentDeathSignal(signal: number): boolean;
  /** waitpid(pid, WNOHANG): collects an ended child. */
  reap(pid: number): number;
}

export interface PeerCred {
  readonly pid: number;
  readonly uid: number;
  /** A pidfd of the peer (the caller closes it), or -1 where the kernel gives none. */
  readonly pidfd: number;
}

export type PeerReader = (fd: number) => PeerCred | null;

/** Who is at the other end of a Unix socket (SO_PEERCRED, /proc/PID/ns): Linux only. */
export interface PeerChecks {
  readonly read: PeerReader;
  /** A socket's descriptor of this process's (Bun's `fd`), checked to name a socket. */
  socketFd(sock: unknown): number | null;
  /** The first of `names` (user, mnt, net, pid) `pid` does not share with this process, or null. */
  otherNamespace(pid: number): string | null;
  /** The pid a pidfd names now: -1 once that process has ended. */
  pidOf(pidfd: number): number;
}

/** The seccomp program bwrap loads (fd 3), for this architecture. */
export interface SeccompSource {
  /** A fresh read-only descriptor onto the program, for one bwrap; the caller closes it after the spawn. */
  open(): number;
}
