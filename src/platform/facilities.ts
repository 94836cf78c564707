// What an operating system gives toolgate, as one table per platform: Linux gets everything;
// elsewhere what needs Linux (bubblewrap sandboxes, the subreaper, /proc, seccomp, openat2, the C
// library through bun:ffi) is absent, and a mode that needs it is refused, never run with less.
// Pure: host.ts picks the row for this process; tests ask for any other.

export interface Facilities {
  /** process.platform: "linux", "darwin", "win32", ... */
  readonly os: string;
  /** The product and bench sandboxes: bubblewrap's user, mount, PID and network namespaces. */
  readonly bubblewrap: boolean;
  /** A seccomp filter bubblewrap loads (written for x86_64 and aarch64 only). */
  readonly seccomp: boolean;
  /** prctl(2): toolgate as the child subreaper of what it runs, a guardian's parent-death signal. */
  readonly subreaper: boolean;
  /** /proc: the process table, an open descriptor's path, a peer's namespaces, the bound Unix sockets. */
  readonly procfs: boolean;
  /** openat2(2) below a folder with no symlink on the way (the kernel may still lack it: probed at first use). */
  readonly openat2: boolean;
  /** The C library through bun:ffi (glibc's libc.so.6 or musl's). */
  readonly libc: boolean;
  /** setsid(2) and kill(2) of a whole process group: every POSIX system. */
  readonly processGroups: boolean;
}

/** The seccomp filter's architectures (platform/linux/seccomp.ts RULES). */
const SECCOMP_ARCHES = new Set(["x64", "arm64"]);

export function facilitiesFor(os: string, arch: string): Facilities {
  const linux = os === "linux";
  return {
    os,
    bubblewrap: linux,
    seccomp: linux && SECCOMP_ARCHES.has(arch),
    subreaper: linux,
    procfs: linux,
    openat2: linux,
    libc: linux,
    processGroups: os !== "win32",
  };
}

/**
 * Why a sandbox mode cannot be had on this platform at all, with the fix; null when the platform
 * has what it needs (whether bubblewrap is installed and may make namespaces is the probe's to say).
 */
export function sandboxUnavailable(
  mode: string,
  f: Facilities,
): { readonly message: string; readonly hint: string } | null {
  if (mode === "off" || f.bubblewrap) return null;
  return {
    message:
      `the sandbox mode "${mode}" needs Linux (bubblewrap); on ${f.os} set "sandbox": "off" in ` +
      `toolgate.json, or run toolgate on Linux: no command runs with less isolation than asked`,
    hint:
      `"sandbox": "off" runs commands with the scrubbed environment only (no isolation); docs/security.md has ` +
      `what each platform gets`,
  };
}
