// Who is at the other end of a Unix socket: the kernel's SO_PEERCRED (the pid and uid the peer
// had when it connected), read with getsockopt(2) through bun:ffi on the socket's descriptor, and
// the peer's namespaces from /proc/PID/ns. Bun's Socket has an `fd` at run time that its types do
// not declare.
import { closeSync, readFileSync, readlinkSync } from "node:fs";
import { openLibc } from "../fs/libc.ts";

const SOL_SOCKET = 1;
const SO_PEERCRED = 17;
/** Linux 6.5+: a pidfd of the peer, so a pid reused after the peer exited is never taken for it. */
const SO_PEERPIDFD = 77;

export interface PeerCred {
  readonly pid: number;
  readonly uid: number;
  /** A pidfd of the peer (the caller closes it), or -1 where the kernel gives none. */
  readonly pidfd: number;
}

export type PeerReader = (fd: number) => PeerCred | null;

/** A socket's descriptor of this process's: bun's `fd`, checked to name a socket (never read another file's bytes as credentials). */
export function socketFd(sock: unknown): number | null {
  const fd = (sock as { fd?: unknown }).fd;
  if (typeof fd !== "number") return null;
  try {
    return readlinkSync(`/proc/self/fd/${fd}`).startsWith("socket:") ? fd : null;
  } catch {
    return null;
  }
}

let reader: Promise<PeerReader | null> | undefined;

/**
 * Why peer credentials are needed and cannot be read here, or null: on Linux they always can be
 * (getsockopt through bun:ffi), so a reader that fails to load (no C library found; the JIT, which
 * bun:ffi needs, off: the caller's BUN_JSC_* no longer reach toolgate) fails closed: no session
 * listens, and a client runs its call cold. Elsewhere only the socket's and folder's modes keep others out.
 */
export const peerChecksUnavailable = (read: PeerReader | null): string | null =>
  read === null && process.platform === "linux" ? "peer credentials cannot be read here (getsockopt(2) through bun:ffi did not load)" : null;

/** A function giving a connected Unix socket's peer, or null where that cannot be read (not Linux, no libc). Loaded once (bun:ffi costs about 0.5 ms). */
export function peerReader(): Promise<PeerReader | null> {
  reader ??= openLibc({ getsockopt: { args: ["i32", "i32", "i32", "ptr", "ptr"], returns: "i32" } }).then((opened) => {
    if (!opened) return null;
    const { lib, ffi } = opened;
    return (fd: number) => {
      // struct ucred { pid_t pid; uid_t uid; gid_t gid; }
      const cred = new Int32Array(3);
      const len = new Uint32Array([12]);
      if (lib.symbols.getsockopt(fd, SOL_SOCKET, SO_PEERCRED, ffi.ptr(cred), ffi.ptr(len)) !== 0 || len[0] !== 12) return null;
      const pidfd = new Int32Array([-1]);
      const plen = new Uint32Array([4]);
      const got = lib.symbols.getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, ffi.ptr(pidfd), ffi.ptr(plen)) === 0;
      return { pid: cred[0]!, uid: cred[1]! >>> 0, pidfd: got ? pidfd[0]! : -1 };
    };
  });
  return reader;
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

/**
 * Why the session refuses the peer on socket `fd`, or null when it is served: it must run as this
 * process's uid, and in its user, mount, network and PID namespaces (a sandboxed process, even one
 * that reached the socket and runs as the same uid, is in others).
 */
export function refusePeer(read: PeerReader, fd: number | null, uid: number): string | null {
  const peer = fd === null ? null : read(fd);
  if (peer === null) return "the session cannot tell who is connecting";
  try {
    if (peer.uid !== uid) return `the session serves uid ${uid}, not ${peer.uid}`;
    if (peer.pid <= 0) return "the session cannot tell which process is connecting (it is in another PID namespace)";
    const other = otherNamespace(peer.pid);
    // The namespaces read were the connecting process's only if it still runs now (else its pid may name another).
    if (peer.pidfd >= 0 && pidOf(peer.pidfd) !== peer.pid) return "the connecting process ended before it could be checked";
    if (other !== null) return `the session serves only processes in its own namespaces; this one is in another ${other} namespace (a sandbox or a container)`;
    return null;
  } finally {
    if (peer.pidfd >= 0) closeSync(peer.pidfd);
  }
}
