// The user's own state folder (SPEC "Trust"): where trust decisions and remembered approvals
// live, outside every repository. From the injected environment only, never process.env.
import { isAbsolute, join } from "node:path";

/** $XDG_STATE_HOME/toolgate, else ~/.local/state/toolgate; null when neither is an absolute path. */
export function userStateDir(env: Readonly<Record<string, string | undefined>>): string | null {
  const xdg = env.XDG_STATE_HOME;
  // The XDG spec: a relative value is invalid and ignored.
  if (xdg !== undefined && xdg !== "" && isAbsolute(xdg)) return join(xdg, "toolgate");
  const home = env.HOME;
  if (home !== undefined && home !== "" && isAbsolute(home)) return join(home, ".local", "state", "toolgate");
  return null;
}

export const NO_USER_STATE =
  "there is no user state folder: neither XDG_STATE_HOME nor HOME is set to an absolute path";
