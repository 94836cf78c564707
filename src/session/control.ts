// A workspace's session, from the outside: where its socket is (the user's sessions folder, named
// by the workspace's real path, never inside the workspace), asking it for its status or to stop,
// and starting it (a detached `toolgate session __run`) until it answers.
import { existsSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { note, raw } from "../result/human.ts";
import { bootError, CliError, ExitCode } from "../result/result.ts";
import { loadEffective } from "../runtime/boot.ts";
import { selfArgv, startDetached } from "../launcher/detached.ts";
import { processRuns } from "../launcher/proc-tree.ts";
import { stateInWorkspace } from "../trust/paths.ts";
import { VERSION } from "../version.ts";
import { exchange } from "./client.ts";
import type { Status } from "./protocol.ts";
import { logFor, makeSessions, realOr, sessionsFolder, SOCKET_PATH_MAX, socketFor, unfitSessions } from "./where.ts";

/** Where a command runs, as the session's socket and its start see it. */
export interface Where {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly configFlag?: string;
  readonly workspaceFlag?: string;
}

/**
 * The socket this workspace's session listens on: in the user's sessions folder (session/where.ts),
 * named by the workspace's real path, where call looks for it; never inside the workspace.
 */
export async function sessionSocket(where: Where): Promise<string> {
  const { config } = await loadEffective({ ...where, permissionFlags: [] });
  const workspace = realOr(config.values.workspace as string);
  const folder = sessionsFolder(where.env);
  if (folder === null)
    throw bootError(
      "a session needs a folder of the user's for its socket: XDG_RUNTIME_DIR, XDG_STATE_HOME and HOME are " +
        "all unset (or not absolute)",
      "set XDG_RUNTIME_DIR (or HOME) to an absolute path",
    );
  if (stateInWorkspace(folder, workspace)) {
    throw bootError(
      `the session's socket would lie in ${folder}, inside the workspace ${workspace}, where a command the ` +
        `session runs could reach it`,
      "set XDG_RUNTIME_DIR (or XDG_STATE_HOME) to a folder outside the workspace",
    );
  }
  const socket = socketFor(folder, workspace);
  if (Buffer.byteLength(socket) > SOCKET_PATH_MAX) {
    throw bootError(
      `the session's socket path ${socket} is ${Buffer.byteLength(socket)} bytes, more than a Unix socket's ` +
        `${SOCKET_PATH_MAX}`,
      "set XDG_RUNTIME_DIR to a shorter folder",
    );
  }
  return socket;
}

/** A request to the session there, or null when none answers. */
export async function askSession(socket: string, t: "status" | "stop"): Promise<unknown> {
  // Only in this user's own folder (the client checks the listener's uid too).
  if (unfitSessions(dirname(socket)) !== null || !existsSync(socket)) return null;
  let status: unknown = null;
  const r = await exchange(
    socket,
    { t, v: VERSION },
    { onStdin: async () => "", out: () => undefined, err: () => undefined },
    (x) => (status = x),
  );
  return r === 0 ? status : null;
}

/** Starts the session process and waits until it answers; a boot that fails shows its log. */
export async function startSession(where: Where, socket: string, idle: number): Promise<number> {
  const running = (await askSession(socket, "status")) as Status | null;
  if (running) {
    note(`a session already serves this workspace (pid ${running.pid})`);
    return 0;
  }
  // The folder is toolgate's own: made 0700, and refused when it is a link or not this user's alone.
  const unfit = makeSessions(dirname(socket));
  if (unfit !== null)
    throw bootError(
      `cannot keep a session's socket in ${unfit}`,
      "remove that folder (toolgate makes it 0700 at the next start), or set XDG_RUNTIME_DIR to a folder of your own",
    );
  const pass = [
    ...(where.configFlag ? ["--config", where.configFlag] : []),
    ...(where.workspaceFlag ? ["--workspace", where.workspaceFlag] : []),
  ];
  const log = logFor(socket);
  const child = startDetached([...selfArgv(), "session", "__run", ...pass, "--idle-secs", String(idle)], {
    cwd: where.cwd,
    env: where.env,
    log,
  });
  let ended: number | undefined;
  void child.exited.then((c) => (ended = c));
  // Ready once it answers; a boot that fails ends it, and its message is in the log.
  for (let i = 0; i < 600; i++) {
    const st = (await askSession(socket, "status")) as Status | null;
    if (st) {
      note(`session started (pid ${st.pid}, idle ${idle} s): call and tools in this workspace are forwarded to it`);
      return 0;
    }
    if (ended !== undefined) {
      raw(readFileSync(log, "utf8"));
      return ended === 0 ? ExitCode.boot : ended;
    }
    await Bun.sleep(50);
  }
  throw new CliError(ExitCode.boot, `the session (pid ${child.pid}) did not answer within 30 s`, `see ${log}`);
}

/** Waits for the session that was asked to stop to end. */
export async function awaitStopped(status: { pid: number }): Promise<number> {
  // Stopping waits for calls in flight and the servers' shutdown: the process's end says it is done.
  for (let i = 0; i < 600; i++) {
    // Ended, or a zombie its parent has not reaped yet (an orphaned session belongs to the nearest
    // subreaper, which may reap late): either way it serves nothing more.
    if (!processRuns(status.pid, null)) {
      note(`session stopped (pid ${status.pid})`);
      return 0;
    }
    await Bun.sleep(50);
  }
  throw new CliError(ExitCode.failed, `the session (pid ${status.pid}) is still running after 30 s`);
}
