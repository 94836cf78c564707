// `toolgate session start|stop|status`: a warm process for this workspace and config that `call`
// and `tools` forward to (src/session/client.ts). It holds no grants: each call brings its own.
import { writeStderr } from "../result/io.ts";
import { defineCommand } from "citty";
import { existsSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { bootError, CliError, ExitCode, usageError } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import { loadEffective } from "../runtime/boot.ts";
import { selfArgv, startDetached } from "../launcher/detached.ts";
import { exchange } from "../session/client.ts";
import type { Status } from "../session/protocol.ts";
import {
  logFor,
  makeSessions,
  realOr,
  sessionsFolder,
  SOCKET_PATH_MAX,
  socketFor,
  unfitSessions,
} from "../session/where.ts";
import { stateInWorkspace } from "../trust/paths.ts";
import { VERSION } from "../version.ts";
import { bool, scanFlags, str, type Scanned } from "./flags.ts";
import { note, writeOut } from "./ui.ts";
import { jsonForTerminal } from "../result/escape.ts";
import type { RunContext } from "./context.ts";
import { processRuns } from "../launcher/proc-tree.ts";

export default defineCommand({
  meta: {
    name: "session",
    description:
      "Keep this workspace's catalog and servers warm for call and tools: start [--idle-secs N], stop, status [--json]",
  },
  args: {
    action: { type: "positional", description: "start, stop or status", required: false },
    "idle-secs": {
      type: "string",
      description: "start: end the session after this many seconds without a call (default 600)",
      valueHint: "N",
    },
  },
});

const SPECS = { "idle-secs": { kind: "string" } } as const;

export async function runSession(ctx: RunContext): Promise<number> {
  const s = scanFlags(ctx.argv, SPECS);
  const [action, extra] = s.positionals;
  if (extra !== undefined) throw usageError(`unexpected argument "${extra}"`, "toolgate session start|stop|status");
  if (action === "__run") return (await import("./session-run.ts")).runSessionProcess(ctx, s, idleSecs(s));
  if (action !== "start" && action !== "stop" && action !== "status") {
    throw usageError(
      action === undefined
        ? "session needs start, stop or status"
        : `unknown session action "${action}"${didYouMean(nearest(action, ["start", "stop", "status"]))}`,
      "toolgate session start [--idle-secs N] | stop | status [--json]",
    );
  }
  if (action !== "start" && str(s, "idle-secs") !== undefined) throw usageError("--idle-secs goes with start");
  const socket = await socketPath(ctx, s);
  if (action === "start") return start(ctx, s, socket);
  const status = await ask(socket, action);
  if (status === null) {
    note("no session serves this workspace");
    return action === "stop" ? 0 : ExitCode.failed;
  }
  if (action === "stop") return stopped(status as { pid: number });
  if (bool(s, "json") || !ctx.stdoutIsTTY) writeOut(jsonForTerminal(status, 0));
  else writeOut(human(status as Status));
  return 0;
}

function idleSecs(s: Scanned): number {
  const raw = str(s, "idle-secs");
  if (raw === undefined) return 600;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1)
    throw usageError(`--idle-secs ${raw}: expected a whole number of seconds, at least 1`);
  return n;
}

/**
 * The socket this workspace's session listens on: in the user's sessions folder (session/where.ts),
 * named by the workspace's real path, where call looks for it; never inside the workspace.
 */
async function socketPath(ctx: RunContext, s: Scanned): Promise<string> {
  const { config } = await loadEffective({
    cwd: ctx.cwd,
    env: ctx.env,
    configFlag: str(s, "config"),
    workspaceFlag: str(s, "workspace"),
    permissionFlags: [],
  });
  const workspace = realOr(config.values.workspace);
  const folder = sessionsFolder(ctx.env);
  if (folder === null)
    throw bootError(
      "a session needs a folder of the user's for its socket: XDG_RUNTIME_DIR, XDG_STATE_HOME and HOME are all unset (or not absolute)",
      "set XDG_RUNTIME_DIR (or HOME) to an absolute path",
    );
  if (stateInWorkspace(folder, workspace)) {
    throw bootError(
      `the session's socket would lie in ${folder}, inside the workspace ${workspace}, where a command the session runs could reach it`,
      "set XDG_RUNTIME_DIR (or XDG_STATE_HOME) to a folder outside the workspace",
    );
  }
  const socket = socketFor(folder, workspace);
  if (Buffer.byteLength(socket) > SOCKET_PATH_MAX) {
    throw bootError(
      `the session's socket path ${socket} is ${Buffer.byteLength(socket)} bytes, more than a Unix socket's ${SOCKET_PATH_MAX}`,
      "set XDG_RUNTIME_DIR to a shorter folder",
    );
  }
  return socket;
}

/** A request to the session there, or null when none answers. */
async function ask(socket: string, t: "status" | "stop"): Promise<unknown> {
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

async function start(ctx: RunContext, s: Scanned, socket: string): Promise<number> {
  // Nothing widens: a session's grants would hold for every call forwarded to it.
  if (s.permissions.length > 0 || s.flags.approve !== undefined) {
    throw usageError(
      "a session holds no grants of its own",
      "give --allow-*, --deny-* and --approve to each call; the session checks every call with its own flags",
    );
  }
  const idle = idleSecs(s);
  const running = (await ask(socket, "status")) as Status | null;
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
    ...(str(s, "config") ? ["--config", str(s, "config")!] : []),
    ...(str(s, "workspace") ? ["--workspace", str(s, "workspace")!] : []),
  ];
  const log = logFor(socket);
  const child = startDetached([...selfArgv(), "session", "__run", ...pass, "--idle-secs", String(idle)], {
    cwd: ctx.cwd,
    env: ctx.env,
    log,
  });
  let ended: number | undefined;
  void child.exited.then((c) => (ended = c));
  // Ready once it answers; a boot that fails ends it, and its message is in the log.
  for (let i = 0; i < 600; i++) {
    const st = (await ask(socket, "status")) as Status | null;
    if (st) {
      if (!bool(s, "quiet"))
        note(`session started (pid ${st.pid}, idle ${idle} s): call and tools in this workspace are forwarded to it`);
      return 0;
    }
    if (ended !== undefined) {
      writeStderr(readFileSync(log, "utf8"));
      return ended === 0 ? ExitCode.boot : ended;
    }
    await Bun.sleep(50);
  }
  throw new CliError(ExitCode.boot, `the session (pid ${child.pid}) did not answer within 30 s`, `see ${log}`);
}

async function stopped(status: { pid: number }): Promise<number> {
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

function human(st: Status): string {
  const servers = st.servers.length
    ? st.servers.map((x) => `${x.name}${x.pid ? ` (pid ${x.pid})` : ""}`).join(", ")
    : "none";
  return [
    `pid        ${st.pid}`,
    `workspace  ${st.workspace}`,
    `socket     ${st.socket}`,
    `config     ${st.config ?? "(none)"}`,
    `uptime     ${st.uptime_secs} s (ends after ${st.idle_secs} s without a call)`,
    `calls      ${st.calls} served, ${st.in_flight} in flight`,
    `memory     ${Math.round(st.rss_bytes / 1048576)} MB`,
    `servers    ${servers}`,
    `secrets    ${st.env_bound.length ? st.env_bound.join(", ") : "none"} (from the environment the session started with)`,
  ].join("\n");
}
