// The journal's one hook and the span records it makes: one record per row, named and described
// from the row alone (never its argument preview or any other content), nested under a served
// client's or the environment's trace, with a task child's adopted rows nested under the task call.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { adoptChildState, openState } from "../../src/state/db.ts";
import { callJournal, selfMark, type JournalRow } from "../../src/state/journal.ts";
import { callTrace, type SpanRecord } from "../../src/telemetry/spans.ts";
import { parseTraceparent } from "../../src/telemetry/context.ts";
import { tempDir } from "../helpers.ts";

const row = (over: Partial<JournalRow> = {}): JournalRow => ({
  time_ms: 1_700_000_000_000,
  tool: "file_read",
  origin: "builtin",
  digest: "d",
  effect: "read",
  status: "success",
  error_code: null,
  duration_ms: 7,
  args_preview: '{"path":"/home/me/secret-CANARY"}',
  result_bytes: 10,
  detail: null,
  ...over,
});
const facts = { lane: "default", sandbox: "off" };
const PARENT = parseTraceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "k=v")!;

describe("the journal's tap", () => {
  test("sees each row of a call once written, and a task child's adopted rows; what it throws never fails the journal", async () => {
    await using dir = tempDir();
    const db = openState(dir.path);
    const seen: string[] = [];
    const j = callJournal(
      () => db,
      selfMark,
      (event, r) => void seen.push(`${event}:${r.status}`),
    );
    j.started(row({ status: "started" }));
    const child = openState(join(dir.path, "child"));
    callJournal(() => child, selfMark).finished(row({ tool: "file_find", status: "success" }));
    child.close();
    adoptChildState(db, join(dir.path, "child"), j.rowId()!, [], (event, r) => void seen.push(`${event}:${r.tool}`));
    j.finished(row());
    callJournal(
      () => db,
      selfMark,
      () => {
        throw new Error("a broken exporter");
      },
    ).finished(row({ status: "failed", error_code: "unknown_tool" }));
    expect(seen).toEqual(["tool_started:started", "adopted:file_find", "tool_finished:success"]);
    expect((db.query("SELECT COUNT(*) AS n FROM journal").get() as { n: number }).n).toBe(3);
    db.close();
  });
});

describe("span records", () => {
  test("a call is one span under its parent: started row gives the start, finished row the rest; the span id is the traceparent's", () => {
    const out: SpanRecord[] = [];
    const t = callTrace({ ...facts, parent: PARENT, task: "t1", via: "session" }, (r) => void out.push(r));
    t.tap("tool_started", row({ status: "started", time_ms: 1_700_000_000_000 }));
    t.approved("prompt");
    const tp = t.traceparent();
    t.tap("tool_finished", row({ time_ms: 1_700_000_000_000, duration_ms: 40 }));
    expect(out).toEqual([
      {
        traceId: PARENT.traceId,
        spanId: tp.split("-")[2]!,
        parent: { spanId: PARENT.spanId, remote: true },
        sampled: true,
        traceState: "k=v",
        name: "execute_tool file_read",
        start: 1_700_000_000_000,
        end: 1_700_000_000_040,
        attributes: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": "file_read",
          "toolgate.origin": "builtin",
          "toolgate.effect": "read",
          "toolgate.approval": "prompt",
          "toolgate.status": "success",
          "toolgate.exit_code": 0,
          "toolgate.duration_ms": 40,
          "toolgate.sandbox": "off",
          "toolgate.lane": "default",
          "toolgate.task_id": "t1",
          "toolgate.via": "session",
        },
      },
    ]);
    expect(tp).toMatch(/^00-4bf92f3577b34da6a3ce929d0e0e4736-[0-9a-f]{16}-01$/);
    expect(JSON.stringify(out)).not.toContain("CANARY");
  });

  test.each([
    ["a permission refusal", row({ status: "failed", error_code: "permission.denied" }), "permission.denied", 4],
    [
      "an indeterminate call",
      row({ origin: "mcp:docs", tool: "docs__get", status: "indeterminate", error_code: "transport_lost" }),
      "transport_lost",
      3,
    ],
    [
      "a boundary rejection",
      row({
        origin: "authored",
        status: "failed",
        error_code: "sensitive_output_rejected",
        detail: '{"rule":"local_path","where":"$.content[0].text"}',
      }),
      "sensitive_output_rejected",
      1,
    ],
    [
      "a call Ctrl-C cancelled",
      row({ status: "failed", error_code: "cancelled", detail: '{"signal":"SIGINT"}' }),
      "cancelled",
      130,
    ],
    [
      "an MCP call SIGTERM interrupted",
      row({
        origin: "mcp:docs",
        tool: "docs__get",
        status: "indeterminate",
        error_code: "interrupted",
        detail: '{"signal":"SIGTERM"}',
      }),
      "interrupted",
      143,
    ],
  ])("%s is an error span with its code and exit code", (_what, r, code, exit) => {
    const out: SpanRecord[] = [];
    callTrace({ ...facts, parent: null }, (x) => void out.push(x)).tap("tool_finished", r);
    expect(out[0]!.error).toBe(code);
    expect(out[0]!.attributes).toMatchObject({
      "toolgate.error_code": code,
      "error.type": code,
      "toolgate.exit_code": exit,
    });
    expect(out[0]!.parent).toBeUndefined();
    if (r.origin === "mcp:docs") expect(out[0]!.attributes["toolgate.server"]).toBe("docs");
    if (r.detail?.includes('"rule"'))
      expect(out[0]!.attributes).toMatchObject({
        "toolgate.boundary.rule": "local_path",
        "toolgate.boundary.where": "$.content[0].text",
      });
  });

  test("a served caller's call names it: the token's subject as enduser.id and its client, nothing of the token", () => {
    const out: SpanRecord[] = [];
    callTrace({ ...facts, parent: null }, (x) => void out.push(x)).tap(
      "tool_finished",
      row({ caller_sub: "alice", caller_client: "team-app" }),
    );
    expect(out[0]!.attributes).toMatchObject({ "enduser.id": "alice", "toolgate.caller.client_id": "team-app" });
    const plain: SpanRecord[] = [];
    callTrace({ ...facts, parent: null }, (x) => void plain.push(x)).tap("tool_finished", row());
    expect(Object.keys(plain[0]!.attributes).filter((k) => k.includes("caller") || k.startsWith("enduser"))).toEqual(
      [],
    );
  });

  test("an unknown tool's name is not exported; an adopted child row is a child span, a never-finished one indeterminate", () => {
    const out: SpanRecord[] = [];
    const t = callTrace({ ...facts, parent: null }, (x) => void out.push(x));
    t.tap("tool_started", row({ tool: "task", status: "started" }));
    t.tap("adopted", row({ tool: "file_find" }));
    t.tap("adopted", row({ tool: "file_read", status: "started" }));
    t.tap("tool_finished", row({ tool: "task" }));
    const task = out[2]!;
    expect(out.map((r) => [r.name, r.parent?.spanId, r.traceId, r.attributes["toolgate.status"]])).toEqual([
      ["execute_tool file_find", task.spanId, task.traceId, "success"],
      ["execute_tool file_read", task.spanId, task.traceId, "indeterminate"],
      ["execute_tool task", undefined, task.traceId, "success"],
    ]);
    expect(out[1]!.error).toBe("journal.unfinished");
    const u: SpanRecord[] = [];
    callTrace({ ...facts, parent: null }, (x) => void u.push(x)).tap(
      "tool_finished",
      row({ tool: "/etc/passwd", origin: null, effect: null, status: "failed", error_code: "unknown_tool" }),
    );
    expect([u[0]!.name, u[0]!.attributes["gen_ai.tool.name"], JSON.stringify(u).includes("passwd")]).toEqual([
      "execute_tool",
      undefined,
      false,
    ]);
  });
});
