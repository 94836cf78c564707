// The detached supervisor (`toolgate tasks supervise ID`, started by `call --background`): claims
// its queued task, opens the runtime as the caller did, runs the call through it (the one pipeline,
// nothing copied), watches for a cancel request, then writes the final row once.
import type { Database } from "bun:sqlite";
import type { Envelope } from "../result/result.ts";
import { openRuntime, type Runtime } from "../runtime/runtime.ts";
import { openState } from "../state/db.ts";
import { ownLine } from "../result/human.ts";
import { selfMark } from "../state/journal.ts";
import { cancelRequested, claimTask, finishTask, type Ending } from "../state/tasks.ts";
import { appendLogs, dropLogs, LOG_CHUNK_CHARS, LOG_CHUNKS_CAP } from "../state/task-logs.ts";
import { LiveLog } from "./live-log.ts";
import { admittedGate, bootFrom, type TaskRequest } from "./request.ts";
import { treeMarks } from "./tree-marks.ts";
import { telemetryFor } from "../telemetry/telemetry.ts";

const CANCEL_POLL_MS = 100;
const SUMMARY_CHARS = 200;

export async function superviseTask(
  id: string,
  stateDir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<number> {
  const db = openState(stateDir);
  const row = claimTask(db, id, selfMark(), Date.now());
  if (!row) return 0; // cancelled while queued, or already taken: nothing to run
  const req = JSON.parse(row.request!) as TaskRequest;

  const cancel = new AbortController();
  let cancelled = false;
  const poll = setInterval(() => {
    if (!cancelled && cancelRequested(db, id)) {
      cancelled = true;
      cancel.abort();
    }
  }, CANCEL_POLL_MS);
  // A TERM to the supervisor (the machine shutting down) cancels the task the same way.
  process.once("SIGTERM", () => {
    cancelled = true;
    cancel.abort();
  });
  let rt: Runtime | undefined;
  // The call's span (its stderr line, if the collector is down, goes to the task's stderr artifact).
  const telemetry = telemetryFor(env, "live", ownLine);
  // The call's output reaches the row while it runs (redacted by the launcher, batched).
  const live = new LiveLog({
    write: (pieces, dropped) => appendLogs(db, id, pieces, dropped),
    chunkChars: LOG_CHUNK_CHARS,
    chunksCap: LOG_CHUNKS_CAP,
  }).start();
  try {
    if (cancelRequested(db, id))
      return end(db, id, {
        status: "cancelled",
        summary: "cancelled before it started",
        exit_reason: "cancelled",
        result: null,
      });
    try {
      // Its own state, kept open here; a server the call starts is not journaled apart (stateDb: none).
      rt = await openRuntime({
        ...bootFrom(req.boot, env, req),
        stateDb: undefined,
        state: { open: () => db, kept: true },
        telemetry,
      });
    } catch (e) {
      return end(db, id, {
        status: "failed",
        summary: bounded(`the supervisor's boot failed: ${(e as Error).message}`),
        exit_reason: "task.boot_failed",
        result: null,
      });
    }
    // What the foreground admitted holds only for the same config and the same tool.
    const entry = rt.booted.catalog.entries.get(req.tool);
    if ((rt.booted.file?.digest ?? null) !== req.configDigest || entry?.digest !== req.entryDigest) {
      const summary =
        "the configuration or the tool changed between the call and its start; what was granted then is not " +
        "applied to it (run the call again)";
      return end(db, id, { status: "failed", summary, exit_reason: "task.config_changed", result: null });
    }
    const { envelope } = await rt.call(req.tool, req.args, {
      lane: req.lane,
      // The foreground's approval, for this tool at this digest (checked above); nobody is asked again.
      approved: new Set([req.tool]),
      ask: undefined,
      operator: (line) => live.push("operator", `${line}\n`),
      unstarted: (e) => {
        throw e;
      },
      unfinished: () => undefined,
      watch: { output: (stream, text) => live.push(stream, text), ...treeMarks(db, id) },
      ...(req.timeoutSecs === undefined ? {} : { timeoutSecs: req.timeoutSecs }),
      ...(telemetry ? { task: id } : {}),
      signal: cancel.signal,
      permissions: (gate) => admittedGate(gate, req.grants),
    });
    live.stop();
    // A result the boundary rejected takes its log along: the log is one of the result's views.
    if (envelope.status !== "success" && envelope.error_code === "sensitive_output_rejected") dropLogs(db, id);
    return end(db, id, ending(envelope, cancelled));
  } catch (e) {
    return end(db, id, {
      status: "failed",
      summary: bounded(`the supervisor failed: ${(e as Error).message}`),
      exit_reason: "task.supervisor_error",
      result: null,
    });
  } finally {
    live.stop();
    clearInterval(poll);
    await rt?.close();
    db.close();
    // Nobody waits on the supervisor: the exporter's own timeout bounds it.
    await telemetry?.finish(15_000);
  }
}

function end(db: Database, id: string, e: Ending): number {
  finishTask(db, id, e, Date.now());
  return 0;
}

/** The task's outcome from the call's envelope (already past the output boundary). */
export function ending(envelope: Envelope, cancelled: boolean): Ending {
  const result = JSON.stringify(envelope);
  if (envelope.status === "success")
    return { status: "succeeded", summary: `${envelope.tool} succeeded`, exit_reason: "success", result };
  const said =
    "message" in envelope && envelope.message ? `${envelope.error_code}: ${envelope.message}` : envelope.error_code;
  if (envelope.status === "indeterminate")
    return { status: "indeterminate", summary: bounded(said), exit_reason: envelope.error_code, result };
  return {
    status: cancelled ? "cancelled" : "failed",
    summary: bounded(cancelled ? `cancelled (${said})` : said),
    exit_reason: cancelled ? "cancelled" : envelope.error_code,
    result,
  };
}

const bounded = (s: string) => (s.length > SUMMARY_CHARS ? `${s.slice(0, SUMMARY_CHARS - 1)}…` : s);
