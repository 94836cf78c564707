// Who is at the other end of an accepted connection: the kernel's SO_PEERCRED (the uid the client
// had when it connected), read with getsockopt(2) through bun:ffi on the socket's descriptor.
// Bun's Socket has an `fd` at run time that its types do not declare.
import { readlinkSync } from "node:fs";
import { openLibc } from "../fs/libc.ts";

const SOL_SOCKET = 1;
const SO_PEERCRED = 17;

type PeerUid = (fd: number) => number | null;

/**
 * A function giving a connected Unix socket's peer uid, or null where that cannot be read (not
 * Linux, no libc, not a socket). Loaded once, at the session's start (bun:ffi costs a few ms).
 */
export async function peerUidReader(): Promise<PeerUid | null> {
  const opened = await openLibc({ getsockopt: { args: ["i32", "i32", "i32", "ptr", "ptr"], returns: "i32" } });
  if (!opened) return null;
  const { lib, ffi } = opened;
  return (fd) => {
    // The descriptor must be a socket: never read another file's bytes as credentials.
    try {
      if (!readlinkSync(`/proc/self/fd/${fd}`).startsWith("socket:")) return null;
    } catch {
      return null;
    }
    // struct ucred { pid_t pid; uid_t uid; gid_t gid; }
    const cred = new Int32Array(3);
    const len = new Uint32Array([12]);
    if (lib.symbols.getsockopt(fd, SOL_SOCKET, SO_PEERCRED, ffi.ptr(cred), ffi.ptr(len)) !== 0 || len[0] !== 12) return null;
    return cred[1]! >>> 0;
  };
}
