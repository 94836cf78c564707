// One span per journal row, made from the row as it is written (the journal's tap, src/state/journal.ts):
// named as the GenAI semantic conventions name a tool execution (`execute_tool <tool>`), with
// toolgate's own facts under `toolgate.*`. Only what the row holds that says nothing of the call's
// content: never the arguments (not even their preview), the result, a path or a secret. Plain
// records here; the OTel SDK turns them into spans elsewhere (export.ts), off the caller's path.
import type { JournalRow, JournalTap } from "../state/journal.ts";
import { exitCodeFor } from "../result/exit.ts";
import { INTERRUPTED_CODES, type Envelope } from "../result/result.ts";
import { formatTraceparent, newSpanId, newTraceId, type SpanParent } from "./context.ts";
import { serverOf } from "../catalog/origin.ts";

export type Attributes = Readonly<Record<string, string | number | boolean>>;

/** A finished span, as plain data (it travels to a detached exporter in its environment). */
export interface SpanRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly parent?: { readonly spanId: string; readonly remote: boolean };
  readonly sampled: boolean;
  readonly traceState?: string;
  readonly name: string;
  /** Epoch milliseconds. */
  readonly start: number;
  readonly end: number;
  readonly attributes: Attributes;
  /** Set when the call failed: the span's status is error, with this description (an error code). */
  readonly error?: string;
}

/** What a call's spans carry besides its row. */
export interface CallFacts {
  /** The trace this call continues: a served client's `_meta`, else toolgate's TRACEPARENT. */
  readonly parent: SpanParent | null;
  readonly lane: string;
  readonly sandbox: string;
  /** A background task's id, when the call runs as one. */
  readonly task?: string;
  /** "session": a call forwarded to a warm session. */
  readonly via?: string;
}

/** One call's side of telemetry: the journal's tap, and its span's context while it runs. */
export interface CallTrace {
  readonly tap: JournalTap;
  /** How the call was approved (policy, flag, remembered, prompt), once it was. */
  approved(how: string): void;
  /** This call's span as a traceparent (for an HTTP MCP request, a task's supervisor). */
  traceparent(): string;
  tracestate(): string | undefined;
}

/** A tool name that is the catalog's (a known tool): an unknown name is the caller's text and is never exported. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,128}$/;

export function callTrace(facts: CallFacts, push: (r: SpanRecord) => void): CallTrace {
  const traceId = facts.parent?.traceId ?? newTraceId();
  const sampled = facts.parent?.sampled ?? true;
  let spanId: string | undefined;
  let start: number | undefined;
  let approval: string | undefined;
  const own = () => (spanId ??= newSpanId());
  const traceState = facts.parent?.traceState;
  const remoteParent = facts.parent ? { spanId: facts.parent.spanId, remote: facts.parent.remote } : undefined;
  // Built field by field, without spreads: serve makes one for every call, on the calls' thread.
  const record = (
    id: string,
    parent: SpanRecord["parent"],
    row: JournalRow,
    from: number,
    more: SpanMore,
  ): SpanRecord => {
    const r: Writable = { traceId, spanId: id, sampled, name: "", start: 0, end: 0, attributes: EMPTY };
    if (traceState) r.traceState = traceState;
    if (parent) r.parent = parent;
    spanOf(r, row, from, more);
    return r;
  };
  const tap: JournalTap = (event, row) => {
    if (event === "tool_started") {
      own();
      start = row.time_ms;
      return;
    }
    // A task child's call, filed under this call: its span is a child of this call's.
    if (event === "adopted")
      push(record(newSpanId(), { spanId: own(), remote: false }, row, row.time_ms, { delegated: true }));
    else push(record(own(), remoteParent, row, start ?? row.time_ms, { facts, approval }));
  };
  return {
    tap,
    approved: (how) => void (approval = how),
    traceparent: () => formatTraceparent(traceId, own(), sampled),
    tracestate: () => traceState,
  };
}

type SpanMore = { facts?: CallFacts; approval?: string | undefined; delegated?: boolean };
type Writable = { -readonly [K in keyof SpanRecord]: SpanRecord[K] };
const EMPTY: Attributes = {};

/** The span of one row, starting at `start`: its name, times, attributes and status, set on `r`. */
function spanOf(r: Writable, row: JournalRow, start: number, more: SpanMore): void {
  const known = row.origin !== null && TOOL_NAME.test(row.tool);
  // A started row never finished (a child killed mid-call): its effect is unknown.
  const status = row.status === "started" ? "indeterminate" : row.status;
  const code = row.status === "started" ? "journal.unfinished" : row.error_code;
  const a: Record<string, string | number | boolean> = { "gen_ai.operation.name": "execute_tool" };
  if (known) a["gen_ai.tool.name"] = row.tool;
  if (row.origin !== null) a["toolgate.origin"] = row.origin;
  const server = serverOf(row.origin);
  if (server !== undefined) a["toolgate.server"] = server;
  if (row.effect !== null) a["toolgate.effect"] = row.effect;
  if (more.approval !== undefined) a["toolgate.approval"] = more.approval;
  a["toolgate.status"] = status;
  if (code !== null) {
    a["toolgate.error_code"] = code;
    a["error.type"] = code;
  }
  // A call a signal interrupted: its row's detail names the signal (130 or 143).
  const signal = code !== null && INTERRUPTED_CODES.has(code) ? signalOf(row.detail) : undefined;
  a["toolgate.exit_code"] = exitCodeFor(
    (status === "success"
      ? { status }
      : { status, error_code: code ?? "", ...(signal ? { details: { signal } } : {}) }) as Envelope,
  );
  a["toolgate.duration_ms"] = row.duration_ms;
  const f = more.facts;
  if (f) {
    a["toolgate.sandbox"] = f.sandbox;
    a["toolgate.lane"] = f.lane;
    if (f.task !== undefined) a["toolgate.task_id"] = f.task;
    if (f.via !== undefined) a["toolgate.via"] = f.via;
  }
  if (more.delegated) a["toolgate.delegated"] = true;
  // A served caller (serve --http --oauth-issuer): its token's subject and client, never the token.
  if (row.caller_sub != null) a["enduser.id"] = row.caller_sub;
  if (row.caller_client != null) a["toolgate.caller.client_id"] = row.caller_client;
  // A rejection: which boundary rule fired and where (a JSON place such as `$.content[0].text`), never the value.
  const rejection = boundaryOf(row.detail);
  if (rejection) {
    a["toolgate.boundary.rule"] = rejection.rule;
    a["toolgate.boundary.where"] = rejection.where;
  }
  r.name = known ? `execute_tool ${row.tool}` : "execute_tool";
  r.start = start;
  r.end = start + Math.max(0, row.duration_ms);
  r.attributes = a;
  if (status !== "success") r.error = code ?? status;
}

function signalOf(detail: string | null): string | undefined {
  try {
    const d = detail === null ? null : (JSON.parse(detail) as { signal?: unknown });
    return typeof d?.signal === "string" ? d.signal : undefined;
  } catch {
    return undefined;
  }
}

function boundaryOf(detail: string | null): { rule: string; where: string } | null {
  if (detail === null || !detail.includes('"rule"')) return null;
  try {
    const d = JSON.parse(detail) as { rule?: unknown; where?: unknown };
    return typeof d.rule === "string" && typeof d.where === "string" ? { rule: d.rule, where: d.where } : null;
  } catch {
    return null;
  }
}
