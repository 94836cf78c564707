// Who is at the other end of a Unix socket, as Linux tells it: the kernel's SO_PEERCRED (the pid
// and uid the peer had when it connected), read with getsockopt(2) through bun:ffi on the socket's
// descriptor, a pidfd of the peer (SO_PEERPIDFD), and the peer's namespaces from /proc/PID/ns.
// Bun's Socket has an `fd` at run time that its types do not declare.
import { readFileSync, readlinkSync } from "node:fs";
import type { PeerChecks } from "../types.ts";
import { openLibc } from "./libc.ts";

const SOL_SOCKET = 1;
const SO_PEERCRED = 17;
/** Linux 6.5+: a pidfd of the peer, so a pid reused after the peer exited is never taken for it. */
const SO_PEERPIDFD = 77;

/**
 * A socket's descriptor of this process's: bun's `fd`, checked to name a socket (never read another file's bytes as
 * credentials).
 */
function socketFd(sock: unknown): number | null {
  const fd = (sock as { fd?: unknown }).fd;
  if (typeof fd !== "number") return null;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`).startsWith("socket:") ? fd : null;
  } catch {
    return null;
  }
}

/** The namespaces a peer must share with the session: a sandbox or a container has its own. */
const NAMESPACES = ["user", "mnt", "net", "pid"] as const;
let own: string[] | undefined;

/** The first namespace `pid` does not share with this process (one it cannot read counts as not shared), or null. */
function otherNamespace(pid: number): string | null {
  own ??= NAMESPACES.map((n) => readlinkSync(`/proc/self/ns/${n}`));
  for (let i = 0; i < NAMESPACES.length; i++) {
    let theirs: string;
    try {
      theirs = readlinkSync(`/proc/${pid}/ns/${NAMESPACES[i]}`);
    } catch {
      return NAMESPACES[i]!;
    }
    if (theirs !== own[i]) return NAMESPACES[i]!;
  }
  return null;
}

/** The pid a pidfd names now: -1 once that process has ended. */
function pidOf(pidfd: number): number {
  try {
    return Number(/^Pid:\s*(-?\d+)/m.exec(readFileSync(`/proc/self/fdinfo/${pidfd}`, "latin1"))?.[1] ?? -1);
  } catch {
    return -1;
  }
}

let loaded: Promise<PeerChecks | null> | undefined;

/**
 * The checks, or null when getsockopt cannot be loaded (no C library found; the JIT, which bun:ffi needs, off).
 * Loaded once (~0.5 ms).
 */
export function loadPeerChecks(): Promise<PeerChecks | null> {
  loaded ??= openLibc({ getsockopt: { args: ["i32", "i32", "i32", "ptr", "ptr"], returns: "i32" } }).then((opened) => {
    if (!opened) return null;
    const { lib, ffi } = opened;
    const read = (fd: number) => {
      // struct ucred { pid_t pid; uid_t uid; gid_t gid; }
      const cred = new Int32Array(3);
      const len = new Uint32Array([12]);
      if (lib.symbols.getsockopt(fd, SOL_SOCKET, SO_PEERCRED, ffi.ptr(cred), ffi.ptr(len)) !== 0 || len[0] !== 12)
        return null;
      const pidfd = new Int32Array([-1]);
      const plen = new Uint32Array([4]);
      const got = lib.symbols.getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, ffi.ptr(pidfd), ffi.ptr(plen)) === 0;
      return { pid: cred[0]!, uid: cred[1]! >>> 0, pidfd: got ? pidfd[0]! : -1 };
    };
    return { read, socketFd, otherNamespace, pidOf };
  });
  return loaded;
}
