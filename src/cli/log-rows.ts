// A journal row as `toolgate log` shows it on a terminal: its cells under HEADER.
import type { JournalEntry } from "../state/journal.ts";

export const HEADER = ["TIME", "TOOL", "STATUS", "CODE", "MS", "ARGUMENTS"];

/**
 * A row's cells: a task's child calls follow their task call's row (they are filed when the child ends), indented
 * under it.
 */
export const cells = (r: JournalEntry): string[] => [
  new Date(r.time_ms).toISOString(),
  r.parent != null ? `  └ ${r.tool} (task #${r.parent})` : r.tool === "task" ? `task #${r.id}` : toolCell(r),
  r.status,
  r.error_code ?? "",
  String(r.duration_ms),
  r.args_preview,
];

/** A background task's rows (task_started, task_finished) name the task beside the tool. */
function toolCell(r: { tool: string; event: string; detail: string | null }): string {
  if (!r.event.startsWith("task_") || r.detail === null) return r.tool;
  const id = (JSON.parse(r.detail) as { task_id?: string }).task_id ?? "";
  return `${r.tool} [${r.event === "task_started" ? "task started" : "task finished"} ${id.slice(0, 8)}]`;
}
