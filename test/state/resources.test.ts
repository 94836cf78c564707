// Created resources in a real state database: recorded with their journal row, listed oldest
// first, and still there when the database is opened again (a restart).
import { describe, expect, test } from "bun:test";
import { openState } from "../../src/state/db.ts";
import { appendJournal } from "../../src/state/journal.ts";
import { lastResources, recordResource } from "../../src/state/resources.ts";
import { tempDir } from "../helpers.ts";

describe("created resources", () => {
  test("recorded with the call's row and read back after the database is reopened", async () => {
    await using dir = tempDir();
    const db = openState(dir.path);
    const row = appendJournal(db, {
      time_ms: 1,
      tool: "most_create_chat",
      origin: "builtin",
      digest: null,
      effect: "irreversible",
      status: "success",
      error_code: null,
      duration_ms: 1,
      args_preview: "{}",
      result_bytes: 2,
      detail: null,
    });
    recordResource(db, { time_ms: 5, tool: "most_create_chat", kind: "chat", resource_id: "c-1", journal_id: row });
    recordResource(db, { time_ms: 6, tool: "most_create_chat", kind: "message", resource_id: "m-1", journal_id: row });
    db.close();
    const again = openState(dir.path);
    expect(lastResources(again, 10)).toEqual([
      { id: 1, time_ms: 5, tool: "most_create_chat", kind: "chat", resource_id: "c-1", journal_id: row },
      { id: 2, time_ms: 6, tool: "most_create_chat", kind: "message", resource_id: "m-1", journal_id: row },
    ]);
    expect(lastResources(again, 1).map((r) => r.resource_id)).toEqual(["m-1"]);
    again.close();
  });
});
