// serve's fast path for tools/call, behind the SDK's Transport seam: the one place serve steps
// around the SDK's Protocol, and it does so with public members only (the transport's onmessage
// and send, the Server's notification and request). Through the SDK a call is parsed against zod
// schemas four times (the message's kind, found by failing the response schemas first; the
// Protocol's parse for the handler; Server's own second parse; the result against
// CallToolResultSchema), 4 to 10 µs of CPU a call (scripts/bench-serve-dispatch.ts). A plain
// tools/call (the shapes almost every client sends, decided by looking at the fields) is taken off the transport here,
// handed to the same handler with the extra the SDK would build, and answered as the SDK would
// answer it; anything else (a field of another type, a task, an unknown key, every other method)
// goes the SDK's way unchanged, so what is accepted and refused stays the SDK's.
// test/serve/dispatch.test.ts holds the SDK to each assumption: the same bytes on the wire either
// way, the same keys in a handler's extra, cancellation and close alike; an SDK upgrade that
// changes one of them fails there.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolRequest, RequestId, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import { isObject, isRequestId, RELATED_TASK } from "../mcp/envelope.ts";

type Types = Pick<
  typeof import("@modelcontextprotocol/sdk/types.js"),
  "CancelledNotificationSchema" | "isJSONRPCNotification" | "McpError" | "ErrorCode"
>;
export type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;
export type CallHandler = (request: CallToolRequest, extra: CallExtra) => Promise<unknown>;

/**
 * Whether `m` is, beyond doubt, what JSONRPCRequestSchema accepts: exactly jsonrpc "2.0", an id, a
 * method and optional object params whose `_meta` (if any) holds at most a string or integer
 * progress token among keys of no concern to it. False sends the message the SDK's way.
 */
export function isPlainRequest(m: unknown): boolean {
  if (!isObject(m) || m.jsonrpc !== "2.0" || typeof m.method !== "string" || !isRequestId(m.id)) return false;
  for (const k in m) if (k !== "jsonrpc" && k !== "id" && k !== "method" && k !== "params") return false;
  if (m.params === undefined) return true;
  if (!isObject(m.params)) return false;
  const meta = m.params._meta;
  if (meta === undefined) return true;
  if (!isObject(meta) || RELATED_TASK in meta) return false;
  const token = meta.progressToken;
  return token === undefined || isRequestId(token);
}

/**
 * Whether a plain request's params are what CallToolRequestSchema accepts, with no task asked for,
 * and what the handler gets is what that parse would give it: arguments with an own `__proto__`
 * key (which the parse's copy leaves out) take the SDK's path.
 */
export function isPlainCall(request: unknown): boolean {
  const p = (request as { params?: unknown }).params;
  if (!isObject(p) || typeof p.name !== "string" || "task" in p) return false;
  return p.arguments === undefined || (isObject(p.arguments) && !Object.hasOwn(p.arguments, "__proto__"));
}

/**
 * After `server.connect(transport)`: a plain tools/call reaches `call` straight from the transport;
 * every other message reaches the SDK as before. `call` is also the SDK's tools/call handler.
 */
export function fastCalls(server: Server, transport: Transport, call: CallHandler, types: Types): void {
  const sdkMessage = transport.onmessage;
  const sdkClose = transport.onclose;
  if (!sdkMessage) throw new Error("fastCalls: the server is not connected to this transport");
  /** Each plain call in flight, by its request id (as the SDK keeps its own). */
  const running = new Map<RequestId, AbortController>();
  transport.onmessage = (m, info) => {
    if (isPlainRequest(m) && (m as { method: string }).method === "tools/call" && isPlainCall(m)) {
      answer(m as unknown as CallToolRequest & { id: RequestId }, info);
      return;
    }
    // A cancellation the SDK would act on (its own for a call it runs; this one's for a plain call).
    if (
      running.size > 0 &&
      (m as { method?: unknown }).method === "notifications/cancelled" &&
      types.isJSONRPCNotification(m)
    ) {
      const c = types.CancelledNotificationSchema.safeParse(m);
      if (c.success && c.data.params.requestId) running.get(c.data.params.requestId)?.abort(c.data.params.reason);
    }
    sdkMessage(m, info);
  };
  // The connection gone: every call in flight is aborted and answers nothing, as the SDK's are.
  transport.onclose = () => {
    for (const c of running.values()) c.abort();
    running.clear();
    sdkClose?.();
  };

  function answer(
    request: CallToolRequest & { id: RequestId },
    info: Parameters<NonNullable<Transport["onmessage"]>>[1],
  ): void {
    const id = request.id;
    const aborter = new AbortController();
    running.set(id, aborter);
    const { signal } = aborter;
    const extra: CallExtra = {
      signal,
      sessionId: transport.sessionId,
      _meta: request.params._meta,
      sendNotification: async (n) => {
        if (!signal.aborted) await server.notification(n, { relatedRequestId: id });
      },
      sendRequest: async (r, schema, options) => {
        if (signal.aborted) throw new types.McpError(types.ErrorCode.ConnectionClosed, "Request was cancelled");
        return await server.request(r, schema, { ...options, relatedRequestId: id });
      },
      authInfo: info?.authInfo,
      requestId: id,
      requestInfo: info?.requestInfo,
      taskId: undefined,
      taskStore: undefined,
      taskRequestedTtl: undefined,
      closeSSEStream: info?.closeSSEStream,
      closeStandaloneSSEStream: info?.closeStandaloneSSEStream,
    };
    // One continuation answers (the message made only when it is sent), reports a failed send and
    // forgets the call: fewer turns and promises than a chain of then, catch and finally.
    const reply = async (message: () => Parameters<Transport["send"]>[0]) => {
      try {
        if (!signal.aborted) await transport.send(message());
      } catch (e) {
        server.onerror?.(new Error(`Failed to send response: ${e}`));
      } finally {
        if (running.get(id) === aborter) running.delete(id);
      }
    };
    Promise.resolve()
      .then(() => call(request, extra))
      .then(
        (result) => reply(() => ({ result: result as Record<string, unknown>, jsonrpc: "2.0", id })),
        (e) =>
          reply(() => {
            const error = e as { code?: unknown; message?: string; data?: unknown };
            const code = Number.isSafeInteger(error.code) ? (error.code as number) : types.ErrorCode.InternalError;
            return {
              jsonrpc: "2.0",
              id,
              error: {
                code,
                message: error.message ?? "Internal error",
                ...(error.data !== undefined ? { data: error.data } : {}),
              },
            };
          }),
      );
  }
}
