// The SDK's Protocol tells an incoming message's kind by parsing it against zod schemas, a
// response's first: a request fails two parses (each building zod's issue objects) before the
// third succeeds, then its handler parses it once more against its own schema. For the plain
// shapes almost every client sends, the same decisions are made here by looking at the fields;
// anything else (a field of another type, a task, an unknown key) takes the SDK's own path
// unchanged, so what is accepted and what is refused stay the SDK's. About a tenth of serve's
// work per call. The SDK's members used here are checked when a client connects
// (`fastPathFor`); if an SDK version renames them, every message takes the SDK's path.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isObject, isRequestId, RELATED_TASK } from "../mcp/envelope.ts";

type Message = Parameters<NonNullable<Transport["onmessage"]>>[0];
type Extra = Parameters<NonNullable<Transport["onmessage"]>>[1];
type Handler = (request: unknown, extra: unknown) => Promise<unknown>;

/** The Protocol members the fast path uses (JavaScript members of the pinned SDK's Protocol class). */
interface ProtocolInternals {
  _onrequest(request: Message, extra?: Extra): void;
  _requestHandlers: Map<string, Handler>;
}

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

const internalsOf = (server: Server): ProtocolInternals | undefined => {
  const s = server as unknown as Partial<ProtocolInternals>;
  return typeof s._onrequest === "function" && s._requestHandlers instanceof Map ? (s as ProtocolInternals) : undefined;
};

/**
 * After `server.connect(transport)`: plain requests go straight to the Protocol's request
 * handling, and a plain tools/call to `call` without the handler's second parse. Returns false
 * (and changes nothing) when this SDK does not have the members it relies on.
 */
export function fastPathFor(server: Server, transport: Transport, call: Handler): boolean {
  const internals = internalsOf(server);
  const sdkMessage = transport.onmessage;
  const sdkCall = internals?._requestHandlers.get("tools/call");
  if (!internals || !sdkMessage || !sdkCall) return false;
  transport.onmessage = (m, extra) => (isPlainRequest(m) ? internals._onrequest(m, extra) : sdkMessage(m, extra));
  internals._requestHandlers.set("tools/call", (request, extra) =>
    isPlainCall(request) ? call(request, extra) : sdkCall(request, extra),
  );
  return true;
}
