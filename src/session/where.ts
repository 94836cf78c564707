// Where a workspace's session listens (sockets are seams): in the user's runtime
// folder ($XDG_RUNTIME_DIR/toolgate), else the user state folder, in a `sessions` folder that
// toolgate makes 0700 and only this user can enter; one socket per workspace, named by a hash of
// its real path. Never in a workspace, where a repository or a sandboxed command could plant one.
// Loaded by every `call` and `tools` (src/session/client.ts): node:fs and node:path only.
import { lstatSync, mkdirSync, realpathSync, type Stats } from "node:fs";
import { dirname, join } from "node:path";
import { userRuntimeDir, userStateDir } from "../trust/paths.ts";

type Env = Readonly<Record<string, string | undefined>>;

/** A Unix socket's path holds at most 107 bytes (sun_path, with its NUL). */
export const SOCKET_PATH_MAX = 107;

/** The folder sessions listen in (maybe missing, not checked here); null with no user folder at all. */
export function sessionsFolder(env: Env): string | null {
  const base = userRuntimeDir(env) ?? userStateDir(env);
  return base === null ? null : join(base, "sessions");
}

export const realOr = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/** The socket of the workspace at the real path `real`, in `folder`. */
export function socketFor(folder: string, real: string): string {
  return join(folder, `${new Bun.CryptoHasher("sha256").update(real).digest("hex").slice(0, 32)}.sock`);
}

/** Its log (the session's own messages), beside the socket. */
export const logFor = (socket: string): string => socket.replace(/\.sock$/, ".log");

/**
 * Why `dir` cannot be trusted with sessions, or null: it must be a real folder (not a link) of
 * this user's that others cannot write to; `closed`: nor enter (the sessions folder itself).
 */
export function unfitFolder(dir: string, closed: boolean, uid = process.getuid?.()): string | null {
  let st: Stats;
  try {
    st = lstatSync(dir);
  } catch {
    return "it does not exist";
  }
  if (st.isSymbolicLink()) return "it is a symbolic link";
  if (!st.isDirectory()) return "it is not a folder";
  if (uid !== undefined && st.uid !== uid) return `it belongs to uid ${st.uid}, not to this user (uid ${uid})`;
  const mode = st.mode & 0o777;
  if ((mode & (closed ? 0o077 : 0o022)) !== 0)
    return `other users can ${closed ? "enter" : "write to"} it (mode ${mode.toString(8).padStart(4, "0")})`;
  return null;
}

/** Why the sessions folder (and toolgate's folder above it) cannot be used, or null. */
export function unfitSessions(folder: string): string | null {
  const own = unfitFolder(folder, true);
  if (own !== null) return `${folder}: ${own}`;
  const above = unfitFolder(dirname(folder), false);
  return above === null ? null : `${dirname(folder)}: ${above}`;
}

/** Makes the sessions folder (0700, its missing parents too) and checks it: null, or why it cannot be used. */
export function makeSessions(folder: string): string | null {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (e) {
    return `${folder}: ${(e as Error).message}`;
  }
  return unfitSessions(folder);
}

/** Whether `p` is `root` or lies under it (both real paths). */
export const within = (root: string, p: string): boolean =>
  p === root || p.startsWith(root.endsWith("/") ? root : `${root}/`);
