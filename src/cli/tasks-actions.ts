// What each `toolgate tasks` action does and shows: list (a table, NDJSON when piped), status,
// logs [--follow], cancel (asked, then waited for), wait [--timeout] (the task's exit code; 124 on timeout).
import type { Database } from "bun:sqlite";
import { escapeOutput, jsonForTerminal } from "../result/escape.ts";
import { note, tell } from "../result/human.ts";
import { listTasks, requestCancel, type TaskRow } from "../state/tasks.ts";
import { readLogs } from "../state/task-logs.ts";
import { ACTIVE, find, operatorView, POLL_MAX_MS, POLL_MS, settle, sleep, taskExitCode } from "../tasks/operator.ts";
import { table, writeOut } from "./ui.ts";

/** `tasks wait` when the timeout passes first (as timeout(1) does): never 0, never an outcome's code. */
export const WAIT_TIMEOUT_EXIT = 124;
const LIST_LIMIT = 100;
const CANCEL_SETTLE_MS = 15_000;
const clock = { now: Date.now };

export function list(db: Database, owner: string | null, json: boolean, width: number): number {
  const rows = listTasks(db, owner, LIST_LIMIT, clock);
  if (json) {
    if (rows.length) writeOut(rows.map((r) => jsonForTerminal({ ...operatorView(r), result: undefined })).join("\n"));
    return 0;
  }
  const out = [["ID", "LANE", "TOOL", "STATUS", "CREATED", "SUMMARY"]];
  for (const r of rows)
    out.push([r.id, r.owner, r.source_tool, r.status, new Date(r.created_ms).toISOString(), r.summary ?? ""]);
  writeOut(rows.length ? table(out, width) : "(no tasks)");
  return 0;
}

export function show(r: TaskRow, json: boolean): number {
  writeOut(jsonForTerminal(operatorView(r), json ? undefined : 2));
  return 0;
}

export async function wait(db: Database, r: TaskRow, lane: string, timeoutMs: number, json: boolean): Promise<number> {
  const final = await settle(db, r.id, lane, Date.now() + timeoutMs);
  writeOut(jsonForTerminal(operatorView(final), json ? undefined : 2));
  if (ACTIVE.has(final.status)) {
    await tell(
      "warn",
      `task ${final.id} is still ${final.status} after ${timeoutMs / 1000} s (exit ${WAIT_TIMEOUT_EXIT})`,
    );
    return WAIT_TIMEOUT_EXIT;
  }
  return taskExitCode(final);
}

export async function cancel(db: Database, r: TaskRow, lane: string, json: boolean): Promise<number> {
  if (!requestCancel(db, r.id)) {
    note(`task ${r.id} had already ended (${r.status})`);
    return show(r, json);
  }
  // The supervisor ends the tree (TERM, grace, KILL), writes the final row, then it is shown.
  const final = await settle(db, r.id, lane, Date.now() + CANCEL_SETTLE_MS);
  if (ACTIVE.has(final.status))
    await tell(
      "warn",
      `task ${final.id} was asked to cancel and is still ${final.status}; toolgate tasks wait ${final.id}`,
    );
  return show(final, json);
}

/** On a terminal the output is escaped (an OSC 52 or CSI in it is shown, not obeyed); piped, it is as written. */
export async function logs(db: Database, r: TaskRow, lane: string, follow: boolean, tty: boolean): Promise<number> {
  let seq = 0;
  const flush = () => {
    for (const c of readLogs(db, r.id, seq)) {
      process.stdout.write(tty ? escapeOutput(c.text) : c.text);
      seq = c.seq;
    }
  };
  if (r.log_dropped > 0)
    note(
      `(${r.log_dropped} older log chunk${r.log_dropped === 1 ? "" : "s"} dropped; the whole output is in the ` +
        `task's artifacts)`,
    );
  flush();
  // --follow ends when the task does (lost included): one last read after the final row.
  for (let cur = r, pause = POLL_MS; follow && ACTIVE.has(cur.status); pause = Math.min(pause * 1.5, POLL_MAX_MS)) {
    await sleep(pause);
    flush();
    cur = find(db, r.id, lane);
    if (!ACTIVE.has(cur.status)) flush();
  }
  return 0;
}
