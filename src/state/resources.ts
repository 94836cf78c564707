// Created resources: what a tool made in the world (a Most chat, a message), kept in the state
// database with the call's journal row, so `toolgate log --resources` says what exists because of us.
import type { Database } from "bun:sqlite";

export interface CreatedResource {
  readonly id: number;
  readonly time_ms: number;
  readonly tool: string;
  readonly kind: string;
  readonly resource_id: string;
  readonly journal_id: number | null;
}

export function recordResource(db: Database, r: Omit<CreatedResource, "id">): void {
  db.query(
    "INSERT INTO created_resources (time_ms, tool, kind, resource_id, journal_id) VALUES ($time_ms, $tool, " +
      "$kind, $resource_id, $journal_id)",
  ).run({ ...r });
}

/** The last `n` created resources, oldest first. */
export function lastResources(db: Database, n: number): CreatedResource[] {
  return (
    db.query("SELECT * FROM created_resources ORDER BY id DESC LIMIT $n").all({ n }) as CreatedResource[]
  ).reverse();
}
