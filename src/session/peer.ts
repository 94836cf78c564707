// Whom a warm session serves: the peer of a Unix socket must run as this uid and share this
// process's user, mount, network and PID namespaces. The credentials and namespaces come from the
// platform (platform/linux/peer.ts: SO_PEERCRED through bun:ffi, /proc/PID/ns); elsewhere there
// are none, and only the socket's and its folder's modes keep others out.
import { closeSync } from "node:fs";
import type { Facilities } from "../platform/facilities.ts";
import { hostPlatform } from "../platform/host.ts";
import type { PeerChecks } from "../platform/types.ts";

export type { PeerChecks };

/** The platform's peer checks, loaded once (bun:ffi costs about 0.5 ms); null where there are none. */
export const peerChecks = (): Promise<PeerChecks | null> => hostPlatform().peerChecks();

/**
 * Why peer credentials are needed and cannot be read here, or null: on Linux they always can be
 * (getsockopt through bun:ffi), so checks that fail to load (no C library found; the JIT, which
 * bun:ffi needs, off: the caller's BUN_JSC_* no longer reach toolgate) fail closed: no session
 * listens, and a client runs its call cold. Elsewhere only the socket's and folder's modes keep others out.
 */
export const peerChecksUnavailable = (
  checks: unknown,
  platform: Pick<Facilities, "libc"> = hostPlatform(),
): string | null =>
  checks === null && platform.libc
    ? "peer credentials cannot be read here (getsockopt(2) through bun:ffi did not load)"
    : null;

/**
 * Why the session refuses the peer on socket `fd`, or null when it is served: it must run as this
 * process's uid, and in its user, mount, network and PID namespaces (a sandboxed process, even one
 * that reached the socket and runs as the same uid, is in others).
 */
export function refusePeer(checks: PeerChecks, fd: number | null, uid: number): string | null {
  const peer = fd === null ? null : checks.read(fd);
  if (peer === null) return "the session cannot tell who is connecting";
  try {
    if (peer.uid !== uid) return `the session serves uid ${uid}, not ${peer.uid}`;
    if (peer.pid <= 0) return "the session cannot tell which process is connecting (it is in another PID namespace)";
    const other = checks.otherNamespace(peer.pid);
    // The namespaces read were the connecting process's only if it still runs now (else its pid may name another).
    if (peer.pidfd >= 0 && checks.pidOf(peer.pidfd) !== peer.pid)
      return "the connecting process ended before it could be checked";
    if (other !== null)
      return (
        `the session serves only processes in its own namespaces; this one is in another ${other} namespace (a ` +
        `sandbox or a container)`
      );
    return null;
  } finally {
    if (peer.pidfd >= 0) closeSync(peer.pidfd);
  }
}
