// The user's own state folder (docs/security.md): where trust decisions and remembered approvals
// live, outside every repository. From the injected environment only, never process.env.
import { warning } from "../result/human.ts";
import { isAbsolute, join } from "node:path";
import { resolveReal } from "../fs/real-path.ts";

/** $XDG_STATE_HOME/toolgate, else ~/.local/state/toolgate; null when neither is an absolute path. */
export function userStateDir(env: Readonly<Record<string, string | undefined>>): string | null {
  const xdg = env.XDG_STATE_HOME;
  // The XDG spec: a relative value is invalid and ignored.
  if (xdg !== undefined && xdg !== "" && isAbsolute(xdg)) return join(xdg, "toolgate");
  const home = env.HOME;
  if (home !== undefined && home !== "" && isAbsolute(home)) return join(home, ".local", "state", "toolgate");
  return null;
}

/** toolgate's folder in the user's runtime folder ($XDG_RUNTIME_DIR/toolgate); null when that is unset or relative. */
export function userRuntimeDir(env: Readonly<Record<string, string | undefined>>): string | null {
  const run = env.XDG_RUNTIME_DIR;
  return run !== undefined && run !== "" && isAbsolute(run) ? join(run, "toolgate") : null;
}

/** The user's own toolgate folders (records, tokens, a session's socket): no sandbox sees them. */
export const userFolders = (env: Readonly<Record<string, string | undefined>>): string[] =>
  [userStateDir(env), userRuntimeDir(env)].filter((p): p is string => p !== null);

export const NO_USER_STATE =
  "there is no user state folder: neither XDG_STATE_HOME nor HOME is set to an absolute path";

/**
 * Whether the user's state folder lies inside one of `folders` (HOME is the checkout, say): then
 * the repository could have shipped its trust records and remembered approvals, so none are read.
 * Decided on real paths, a missing tail tolerated (the folder may not exist yet).
 */
export function stateInWorkspace(stateDir: string, ...folders: string[]): boolean {
  const d = resolveReal(stateDir, "/") ?? stateDir;
  return folders.some((f) => {
    const w = resolveReal(f, "/") ?? f;
    return d === w || d.startsWith(w === "/" ? "/" : `${w}/`);
  });
}

export const stateInWorkspaceHint =
  "set XDG_STATE_HOME to a folder outside the workspace (your records live in $XDG_STATE_HOME/toolgate)";

let told = false;

/** Says once per process that what a user state folder inside the workspace holds is ignored. */
export function tellIgnored(stateDir: string, what: string): void {
  if (told) return;
  told = true;
  warning(
    `ignoring ${what} in ${stateDir}: this user state folder lies inside the workspace, where the repository ` +
      `could have put them; ${stateInWorkspaceHint}`,
  );
}
