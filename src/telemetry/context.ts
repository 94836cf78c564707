// W3C Trace Context (traceparent, tracestate): read from toolgate's environment (TRACEPARENT, as CI
// systems and agent hosts pass it), from a served client's `params._meta`, and written for the calls
// toolgate makes (an HTTP MCP server's request, a task's supervisor). No OTel module: ids are made
// here, so a call's span id is known while it runs, before the exporter is ever loaded.

export interface SpanParent {
  readonly traceId: string;
  readonly spanId: string;
  readonly sampled: boolean;
  /** Came from outside this process (an environment variable, a client). */
  readonly remote: boolean;
  readonly traceState?: string;
}

const HEADER = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);
/**
 * tracestate: list members of the spec's characters, at most 512 characters (else dropped whole, as the spec allows).
 */
const STATE =
  /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]*=[\x20-\x2b\x2d-\x3c\x3e-\x7e]*(,[\x20-\x2b\x2d-\x3c\x3e-\x7e]*=[\x20-\x2b\x2d-\x3c\x3e-\x7e]*)*$/;

/** A traceparent header (version 00, or a later version read as 00 says), else null (ignored, never an error). */
export function parseTraceparent(header: unknown, state?: unknown): SpanParent | null {
  if (typeof header !== "string") return null;
  const m = HEADER.exec(header.trim());
  if (!m) return null;
  const [, version, traceId, spanId, flags, rest] = m;
  if (version === "ff" || (version === "00" && rest !== undefined)) return null;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return null;
  const traceState =
    typeof state === "string" && state.length <= 512 && STATE.test(state.trim()) ? state.trim() : undefined;
  return {
    traceId: traceId!,
    spanId: spanId!,
    sampled: (parseInt(flags!, 16) & 1) === 1,
    remote: true,
    ...(traceState ? { traceState } : {}),
  };
}

export const formatTraceparent = (traceId: string, spanId: string, sampled: boolean): string =>
  `00-${traceId}-${spanId}-${sampled ? "01" : "00"}`;

// Random bytes are drawn from the system in blocks and handed out in order, spelled in hex natively:
// serve makes two ids per call, and a getRandomValues call and a string built byte by byte for
// each cost more than the rest of a call's span.
const POOL = Buffer.alloc(2_048);
let used = POOL.length;
const hex = (bytes: number): string => {
  if (used + bytes > POOL.length) {
    crypto.getRandomValues(POOL);
    used = 0;
  }
  return POOL.toString("hex", used, (used += bytes));
};

/** A random id, never all zeros (which the spec reserves as invalid). */
export const newTraceId = (): string => {
  const id = hex(16);
  return id === ZERO_TRACE ? newTraceId() : id;
};
export const newSpanId = (): string => {
  const id = hex(8);
  return id === ZERO_SPAN ? newSpanId() : id;
};
