// What the SDK's JSON-RPC schemas take, for the checks that decide without running them: serve's
// fast path for plain requests (serve/dispatch.ts) and the flagging of answers the SDK would refuse
// (transport.ts, http-cap.ts).

/** A JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A request id (or progress token) as RequestIdSchema takes it: a string or a safe integer (zod's int() refuses 2^53
 * and past).
 */
export const isRequestId = (v: unknown): v is string | number => typeof v === "string" || Number.isSafeInteger(v);

/** The `_meta` key of a task-related message (the SDK's schema wants `{ taskId: string }` there). */
export const RELATED_TASK = "io.modelcontextprotocol/related-task";
