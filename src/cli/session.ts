// `toolgate session start|stop|status`: a warm process for this workspace and config that `call`
// and `tools` forward to (src/session/client.ts). It holds no grants: each call brings its own.
import { defineCommand } from "citty";
import { jsonForTerminal } from "../result/escape.ts";
import { note } from "../result/human.ts";
import { ExitCode, usageError } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import { askSession, awaitStopped, sessionSocket, startSession } from "../session/control.ts";
import type { Status } from "../session/protocol.ts";
import type { RunContext } from "./context.ts";
import { bool, str, type Scanned } from "./flags.ts";
import { sessionLines } from "./render-session.ts";
import { writeOut } from "./ui.ts";

export default defineCommand({
  meta: {
    name: "session",
    description:
      "Keep this workspace's catalog and servers warm for call and tools: start [--idle-secs N], stop, status [--json]",
  },
  args: {
    action: {
      type: "positional",
      description: "start, stop or status",
      required: false,
      complete: ["start", "stop", "status"],
    },
    "idle-secs": {
      type: "string",
      description: "start: end the session after this many seconds without a call (default 600)",
      valueHint: "N",
    },
  },
});

export async function runSession(ctx: RunContext): Promise<number> {
  const s = ctx.flags;
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
  const where = { cwd: ctx.cwd, env: ctx.env, configFlag: str(s, "config"), workspaceFlag: str(s, "workspace") };
  const socket = await sessionSocket(where);
  if (action === "start") {
    // Nothing widens: a session's grants would hold for every call forwarded to it.
    if (s.permissions.length > 0 || s.flags.approve !== undefined)
      throw usageError(
        "a session holds no grants of its own",
        "give --allow-*, --deny-* and --approve to each call; the session checks every call with its own flags",
      );
    return startSession(where, socket, idleSecs(s));
  }
  const status = await askSession(socket, action);
  if (status === null) {
    note("no session serves this workspace");
    return action === "stop" ? 0 : ExitCode.failed;
  }
  if (action === "stop") return awaitStopped(status as { pid: number });
  if (bool(s, "json") || !ctx.stdoutIsTTY) writeOut(jsonForTerminal(status, 0));
  else writeOut(sessionLines(status as Status));
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
