// Before a `call` or `tools` loads the session client (src/session/client.ts, its chunk and
// node:path): is there surely no sessions folder? Then no session can answer, and the command runs
// cold at once, as the client itself would decide (findSocket: no folder, no session). The entry
// loads this module on every start, so it uses node:fs alone, and no path arithmetic: it answers
// only for a folder named plainly (no `.` or `..` segment, where the system's resolution and a
// lexical join could differ); anything else is left to the client's whole check.
import { lstatSync } from "node:fs";

type Env = Readonly<Record<string, string | undefined>>;

const DOT_SEGMENT = /(^|\/)\.\.?(\/|$)/;

/**
 * The sessions folder as where.ts's sessionsFolder names it ($XDG_RUNTIME_DIR/toolgate, else the
 * user state folder, then `sessions`), unjoined; null with no user folder at all; undefined when a
 * base holds a `.` or `..` segment (not answered here).
 */
export function plainSessionsFolder(env: Env): string | null | undefined {
  const absolute = (v: string | undefined) => v !== undefined && v !== "" && v.startsWith("/");
  const base = absolute(env.XDG_RUNTIME_DIR)
    ? `${env.XDG_RUNTIME_DIR}/toolgate`
    : absolute(env.XDG_STATE_HOME)
      ? `${env.XDG_STATE_HOME}/toolgate`
      : absolute(env.HOME)
        ? `${env.HOME}/.local/state/toolgate`
        : null;
  if (base === null) return null;
  return DOT_SEGMENT.test(base) ? undefined : `${base}/sessions`;
}

/** True only when no session can serve this process: no user folder, or no sessions folder in it. */
export function surelyNoSession(env: Env): boolean {
  const folder = plainSessionsFolder(env);
  if (folder === undefined) return false;
  if (folder === null) return true;
  try {
    return lstatSync(folder, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false; // unreadable (EACCES, ENOTDIR, a loop, too long): the client's check says why
  }
}
