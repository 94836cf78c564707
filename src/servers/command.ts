// Where a stdio server's command is: a path as written (against its folder), or a bare name on
// the server's own PATH (a trusted config's env.PATH), the CALLER's PATH, then the launcher's fixed one. The finder
// is injected; this stays pure.
import { resolve } from "node:path";

export type FindOnPath = (name: string, pathEnv: string) => { dir: string; path: string; real: string } | null;

export interface Command {
  /** What starts: the path as found (a symlink kept, `bunx` is bun under another name). */
  readonly command: string;
  /** Its real path, when it differs: part of the digest (what runs). */
  readonly real?: string;
  /** The folder it was found in, put before the child's fixed PATH (a `node` beside `npx`). */
  readonly dir?: string;
  /** Why it cannot start: the folders looked in. */
  readonly problem?: string;
}

/**
 * `serverPath`: a trusted config's `env.PATH` for the server. It is looked in first and it is the
 * child's PATH (instead of the fixed one), as other clients start a command on the PATH they give it.
 */
export function resolveCommand(
  raw: string,
  cwd: string,
  callerPath: string | undefined,
  fixedPath: string,
  find: FindOnPath | undefined,
  serverPath?: string,
): Command {
  // A command with a slash is a path: resolved once against the server's cwd, so the program
  // the run permission names is the program that starts.
  if (raw.includes("/")) return { command: resolve(cwd, raw) };
  if (!find) return { command: raw };
  const childPath = serverPath ?? fixedPath;
  const where = [
    ...new Set(
      [...(serverPath ?? "").split(":"), ...(callerPath ?? "").split(":"), ...fixedPath.split(":")].filter((d) =>
        d.startsWith("/"),
      ),
    ),
  ];
  const hit = find(raw, where.join(":"));
  if (!hit)
    return {
      command: raw,
      problem:
        `"${raw}" was not found on PATH (looked in ${where.join(", ") || "no folder: PATH is empty"}); ` +
        `install it, or give its full path as "command"`,
    };
  const fixed = childPath.split(":").includes(hit.dir);
  return {
    command: hit.path,
    ...(fixed ? {} : { dir: hit.dir }),
    ...(hit.real !== hit.path ? { real: hit.real } : {}),
  };
}
