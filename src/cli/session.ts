// `toolgate session start|stop|status`: a warm process for this workspace and config that `call`
// and `tools` forward to (src/session/client.ts). It holds no grants: each call brings its own.
import { defineCommand } from "citty";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { bootError, CliError, ExitCode, usageError } from "../result/result.ts";
import { loadEffective } from "../runtime/boot.ts";
import { makeStateFolder } from "../state/folder.ts";
import { selfArgv, startDetached } from "../launcher/detached.ts";
import { exchange } from "../session/client.ts";
import { SOCKET_NAME, STATE_FOLDER, type Status } from "../session/protocol.ts";
import { VERSION } from "../version.ts";
import { bool, scanFlags, str, type Scanned } from "./flags.ts";
import { note, writeOut } from "./ui.ts";
import { jsonForTerminal } from "../result/escape.ts";
import type { RunContext } from "./context.ts";
import { readStat } from "../launcher/proc-tree.ts";

export default defineCommand({
  meta: { name: "session", description: "Keep this workspace's catalog and servers warm for call and tools: start [--idle-secs N], stop, status [--json]" },
  args: {
    action: { type: "positional", description: "start, stop or status", required: false },
    "idle-secs": { type: "string", description: "start: end the session after this many seconds without a call (default 600)", valueHint: "N" },
  },
});

const SPECS = { "idle-secs": { kind: "string" } } as const;

export async function runSession(ctx: RunContext): Promise<number> {
  const s = scanFlags(ctx.argv, SPECS);
  const [action, extra] = s.positionals;
  if (extra !== undefined) throw usageError(`unexpected argument "${extra}"`, "toolgate session start|stop|status");
  if (action === "__run") return (await import("./session-run.ts")).runSessionProcess(ctx, s, idleSecs(s));
  if (action !== "start" && action !== "stop" && action !== "status") {
    throw usageError(action === undefined ? "session needs start, stop or status" : `unknown session action "${action}"`, "toolgate session start [--idle-secs N] | stop | status [--json]");
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
  if (!/^\d+$/.test(raw) || n < 1) throw usageError(`--idle-secs ${raw}: expected a whole number of seconds, at least 1`);
  return n;
}

/** The socket this workspace's session listens on: in its state folder, which must be the default one (clients look there). */
async function socketPath(ctx: RunContext, s: Scanned): Promise<string> {
  const { config } = await loadEffective({ cwd: ctx.cwd, env: ctx.env, configFlag: str(s, "config"), workspaceFlag: str(s, "workspace"), permissionFlags: [] });
  const state = config.values.state as string;
  const workspace = config.values.workspace as string;
  if (state !== join(workspace, STATE_FOLDER)) {
    throw bootError(`the state folder is ${state}: a session listens in ${join(workspace, STATE_FOLDER)}, where call looks for it`, 'leave "state" at its default to use a session');
  }
  return join(state, SOCKET_NAME);
}

/** A request to the session there, or null when none answers. */
async function ask(socket: string, t: "status" | "stop"): Promise<unknown> {
  if (!existsSync(socket)) return null;
  let status: unknown = null;
  const r = await exchange(socket, { t, v: VERSION }, { onStdin: async () => "", out: () => undefined, err: () => undefined }, (x) => (status = x));
  return r === 0 ? status : null;
}

async function start(ctx: RunContext, s: Scanned, socket: string): Promise<number> {
  // Nothing widens: a session's grants would hold for every call forwarded to it.
  if (s.permissions.length > 0 || s.flags.approve !== undefined) {
    throw usageError("a session holds no grants of its own", "give --allow-*, --deny-* and --approve to each call; the session checks every call with its own flags");
  }
  const idle = idleSecs(s);
  const running = (await ask(socket, "status")) as Status | null;
  if (running) {
    note(`a session already serves this workspace (pid ${running.pid})`);
    return 0;
  }
  const state = join(socket, "..");
  makeStateFolder(state);
  const pass = [...(str(s, "config") ? ["--config", str(s, "config")!] : []), ...(str(s, "workspace") ? ["--workspace", str(s, "workspace")!] : [])];
  const log = join(state, "session.log");
  const child = startDetached([...selfArgv(), "session", "__run", ...pass, "--idle-secs", String(idle)], { cwd: ctx.cwd, env: ctx.env, log });
  let ended: number | undefined;
  void child.exited.then((c) => (ended = c));
  // Ready once it answers; a boot that fails ends it, and its message is in the log.
  for (let i = 0; i < 600; i++) {
    const st = (await ask(socket, "status")) as Status | null;
    if (st) {
      if (!bool(s, "quiet")) note(`session started (pid ${st.pid}, idle ${idle} s): call and tools in this workspace are forwarded to it`);
      return 0;
    }
    if (ended !== undefined) {
      process.stderr.write(readFileSync(log, "utf8"));
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
    const st = readStat(status.pid);
    if (st === null || st.state === "Z" || st.state === "X") {
      note(`session stopped (pid ${status.pid})`);
      return 0;
    }
    await Bun.sleep(50);
  }
  throw new CliError(ExitCode.failed, `the session (pid ${status.pid}) is still running after 30 s`);
}

function human(st: Status): string {
  const servers = st.servers.length ? st.servers.map((x) => `${x.name}${x.pid ? ` (pid ${x.pid})` : ""}`).join(", ") : "none";
  return [
    `pid        ${st.pid}`,
    `workspace  ${st.workspace}`,
    `config     ${st.config ?? "(none)"}`,
    `uptime     ${st.uptime_secs} s (ends after ${st.idle_secs} s without a call)`,
    `calls      ${st.calls} served, ${st.in_flight} in flight`,
    `memory     ${Math.round(st.rss_bytes / 1048576)} MB`,
    `servers    ${servers}`,
    `secrets    ${st.env_bound.length ? st.env_bound.join(", ") : "none"} (from the environment the session started with)`,
  ].join("\n");
}
