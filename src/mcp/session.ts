// One MCP client session over a transport toolgate owns. The SDK is loaded lazily (it costs
// tens of milliseconds); requests go out raw so the SDK never validates or reshapes a result
// before the output boundary sees it, and every request carries its deadline explicitly
// (the SDK's own default is 60 s).
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { EarlyInitialized, PinnedProtocol } from "./handshake.ts";
import { CUT_MARK, MALFORMED_MARK, markReceived, receivedData } from "./transport.ts";
import { whereRefused } from "./refused.ts";
import { NO_MODEL, Peers, type InFlight, type Peer } from "./peer.ts";
import { isLongRunning } from "../result/lifetime.ts";

export interface ListedTool {
  readonly name: string;
  readonly description?: string;
  readonly inputSchema: unknown;
  /**
   * The tool's other fields as the server sent them (title, annotations, outputSchema, _meta): `serve --expose`
   * shows them.
   */
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** What a server declared at initialize: a gateway relays what it offers and declares the same. */
export interface ServerInfo {
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly instructions?: string | undefined;
}

export type CallOutcome =
  | { readonly ok: true; readonly result: Record<string, unknown> }
  /**
   * transport: the connection failed mid-call (effect unknown); deadline: no answer within the
   * request's own timer; protocol: an error the server answered (its JSON-RPC code, whichever it
   * is, -32000 and -32001 included; or an HTTP error status); malformed: an answer that is not a
   * result of the method's shape (the SDK's schema refused it; `message` says where, never what it
   * held); too_large: the answer passed the message bound and was not read; cancelled: the caller's
   * signal aborted the request before its answer came (sent, it may have been acted on).
   */
  | {
      readonly ok: false;
      readonly kind: "transport" | "deadline" | "protocol" | "malformed" | "too_large" | "cancelled";
      readonly message: string;
      readonly code?: number;
    };

export interface McpSession {
  /** With `pin`: the protocol version the server answered (before the pin rewrote it for the SDK). */
  readonly negotiated: string | undefined;
  listTools(timeoutMs: number): Promise<ListedTool[]>;
  /** `peer`: who answers the server's elicitations and sampling during this call, and sees its progress. */
  /** `meta`: the request's `_meta` (the call's trace context, when telemetry is on). */
  callTool(
    name: string,
    args: unknown,
    opts: { timeoutMs: number; signal?: AbortSignal; peer?: Peer; meta?: Readonly<Record<string, string>> },
  ): Promise<CallOutcome>;
  /** Any other request a gateway relays (resources, prompts, completion, logging), answered raw. */
  request(
    method: string,
    params: Record<string, unknown>,
    opts: { timeoutMs: number; signal?: AbortSignal; peer?: Peer },
  ): Promise<CallOutcome>;
  /** What the server declared at initialize. */
  readonly server: ServerInfo;
  /**
   * The server's notifications outside any call of toolgate's (resources updated, lists changed,
   * log messages with no call in flight and nothing tying them to one) go to `fn`; one listener,
   * set by the gateway. A log message that is nobody's to see (calls for several owners in
   * flight, nothing tying it to one: Peers.log) is dropped; `dropped` hears that it was, to count it.
   */
  onNotification(fn: (method: string, params: Record<string, unknown>) => void, dropped?: () => void): void;
  close(): Promise<void>;
}

const MAX_PAGES = 100;

/** A JSON-RPC error answer as the SDK sends a thrown error's code and message (McpError would prefix its message). */
const refusal = (code: number, message: string) => Object.assign(new Error(message), { code });

/**
 * `sampling`: declare the capability (serve, which can relay it to a client that has it).
 * `elicitation: false`: declare none (serve --expose, for a client that declared none).
 * `relatedMark`: the params key by which the transport ties a log message to a request (http-cap.ts).
 */
export async function openSession(
  transport: Transport,
  opts: {
    pin: boolean;
    connectTimeoutMs: number;
    version: string;
    sampling?: boolean;
    elicitation?: boolean;
    relatedMark?: string;
    early?: boolean;
  },
): Promise<McpSession> {
  // A one-shot process parses each of the SDK's schemas a few times at most: zod's interpreter does
  // that sooner than compiling a parser first (the initialize answer about 4 ms sooner). Set before
  // the SDK's schemas are made; a long-running process keeps the compiled parsers.
  if (!isLongRunning()) (await import("zod/v4")).config({ jitless: true });
  const [{ Client }, types, { AjvJsonSchemaValidator }] = await Promise.all([
    import("@modelcontextprotocol/sdk/client/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/validation/ajv"),
  ]);
  const pinned = opts.pin ? new PinnedProtocol(transport) : null;
  // The SDK builds an ajv per Client for output schemas (several ms of every cold call) that
  // toolgate's raw requests never use: it is made only if the SDK ever asks for a validator.
  let ajv: InstanceType<typeof AjvJsonSchemaValidator> | undefined;
  const jsonSchemaValidator = {
    getValidator: <T>(schema: Parameters<InstanceType<typeof AjvJsonSchemaValidator>["getValidator"]>[0]) =>
      (ajv ??= new AjvJsonSchemaValidator()).getValidator<T>(schema),
  };
  // Only what toolgate can do: a form elicitation is always answered (asked, relayed or declined;
  // defaults applied, SEP-1034), unless the one client behind it declared none (serve --expose);
  // sampling only where it can be relayed. Never roots: advertising them makes the SDK wait out a
  // 2 s close timeout.
  const elicits = opts.elicitation !== false;
  const capabilities = {
    ...(elicits ? { elicitation: { form: { applyDefaults: true } } } : {}),
    ...(opts.sampling ? { sampling: {} } : {}),
  };
  const client = new Client({ name: "toolgate", version: opts.version }, { capabilities, jsonSchemaValidator });
  const peers = new Peers();
  if (elicits)
    client.setRequestHandler(
      types.ElicitRequestSchema,
      (r, extra) => peers.elicit(r.params as Record<string, unknown>, extra.signal) as Promise<never>,
    );
  if (opts.sampling) {
    client.setRequestHandler(types.CreateMessageRequestSchema, async (r, extra) => {
      try {
        return (await peers.sample(r.params as Record<string, unknown>, extra.signal)) as never;
      } catch (e) {
        if (e instanceof types.McpError) throw e;
        throw refusal(types.ErrorCode.InvalidRequest, (e as Error).message);
      }
    });
  }
  // Undeclared sampling (the SDK refuses a handler for it): the server still hears why, not just "method not found".
  let notified: ((method: string, params: Record<string, unknown>) => void) | undefined;
  let dropped: (() => void) | undefined;
  // A log message goes to the call it belongs to (shown before that call's result), or nowhere
  // when that is unclear (Peers.log); with no call in flight, to the gateway's listener as the
  // rest do. The transport's tie to a request is read and taken off.
  client.fallbackNotificationHandler = async (n) => {
    let params = (n.params ?? {}) as Record<string, unknown>;
    if (n.method === "notifications/message") {
      let related: unknown;
      if (opts.relatedMark !== undefined && opts.relatedMark in params) {
        ({ [opts.relatedMark]: related, ...params } = params);
      }
      const route = peers.log(params, typeof related === "string" || typeof related === "number" ? related : undefined);
      if (route === "unclear") dropped?.();
      if (route !== "outside") return;
    }
    notified?.(n.method, params);
  };
  client.fallbackRequestHandler = async (r) => {
    if (r.method === "sampling/createMessage")
      throw refusal(types.ErrorCode.MethodNotFound, `${NO_MODEL}; the request is declined`);
    throw refusal(types.ErrorCode.MethodNotFound, "Method not found");
  };
  // The parsers of the answers a call waits on (tools/list's, tools/call's) are built on their first
  // parse, up to a millisecond of the call's path after the server answered: built here instead,
  // once initialize is on its way, while the server is still starting.
  const callResult = types.CallToolResultSchema.passthrough();
  // Any other request's answer (serve relays reads, prompts, completions): one schema per
  // connection, made once. A new one per request cost its parser's compilation every time
  // (zod builds a parser per schema object): a relayed read 475 -> 405 µs p50 (direct 110).
  const anyResult = types.ResultSchema.passthrough();
  setTimeout(() => {
    types.ResultSchema.safeParse({ tools: [] });
    callResult.safeParse({ content: [{ type: "text", text: "" }] });
  }, 0);
  // No answer to initialize in time (the client's own -32001, not a server's error of that code) is
  // marked: the caller's message names the key that sets it.
  // `early` (a stdio child's pipes, listed first thing): its initialized notification, and the first
  // page of tools/list behind it, go out as the initialize result arrives (EarlyInitialized).
  const wired = pinned ?? transport;
  const connected = opts.early ? new EarlyInitialized(wired, types.SUPPORTED_PROTOCOL_VERSIONS, true) : wired;
  connected.onmessage = markReceived;
  await client
    .connect(connected, { timeout: opts.connectTimeoutMs })
    .catch((e) =>
      Promise.reject(
        (e as { code?: unknown }).code === types.ErrorCode.RequestTimeout && !receivedData(e)
          ? Object.assign(e as Error, { connectTimeout: true })
          : e,
      ),
    );
  // The SDK runs a notification's handler a microtask after it arrives but settles a response at
  // once: a server's last progress (or log) sent just before its result would find its request
  // already gone. A response is handed on a microtask later, after what came before it.
  const deliver = wired.onmessage!;
  wired.onmessage = (m: JSONRPCMessage) => ("method" in m ? deliver(m) : void Promise.resolve().then(() => deliver(m)));
  // A call learns its request's id as the SDK writes the request, within client.request (raw()):
  // a log message the transport ties to that id is the call's.
  let sending: InFlight | undefined;
  const send = wired.send.bind(wired);
  wired.send = (m, options) => {
    if (sending && "method" in m && "id" in m) {
      sending.id = m.id;
      sending = undefined;
    }
    return send(m, options);
  };
  const negotiated = pinned?.negotiated;
  return {
    negotiated,
    async listTools(timeoutMs) {
      // Parsed leniently here and checked by the catalog (name rule, object schema), so a bad
      // descriptor fails the boot naming the tool instead of as a schema-library dump.
      const tools: ListedTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const r = (await client.request(
          { method: "tools/list", params: cursor ? { cursor } : {} },
          types.ResultSchema,
          { timeout: timeoutMs },
        )) as { tools?: unknown; nextCursor?: unknown };
        if (!Array.isArray(r.tools)) throw new Error("tools/list answered without a tools array");
        for (const t of r.tools as { name?: unknown; description?: unknown; inputSchema?: unknown }[]) {
          if (typeof t?.name !== "string") throw new Error("tools/list answered a tool without a name");
          const { name, description, inputSchema, ...rest } = t as Record<string, unknown> & { name: string };
          tools.push({
            name,
            description: typeof description === "string" ? description : "",
            inputSchema,
            ...(Object.keys(rest).length > 0 ? { extra: rest } : {}),
          });
        }
        cursor = typeof r.nextCursor === "string" && r.nextCursor !== "" ? r.nextCursor : undefined;
        if (!cursor) break;
      }
      return tools;
    },
    server: {
      capabilities: (client.getServerCapabilities() ?? {}) as Record<string, unknown>,
      instructions: client.getInstructions(),
    },
    onNotification(fn, onDropped) {
      notified = fn;
      dropped = onDropped;
    },
    callTool: (name, args, opts) =>
      raw(
        "tools/call",
        { name, arguments: args as Record<string, unknown>, ...(opts.meta ? { _meta: opts.meta } : {}) },
        opts,
        callResult,
      ),
    request: (method, params, opts) => raw(method, params, opts, anyResult),
    close: () => client.close(),
  };

  async function raw(
    method: string,
    params: Record<string, unknown>,
    { timeoutMs, signal, peer }: { timeoutMs: number; signal?: AbortSignal; peer?: Peer },
    schema: typeof types.ResultSchema,
  ): Promise<CallOutcome> {
    const call = peers.enter(peer ?? {});
    try {
      // onprogress makes the SDK send a progressToken; the server's notifications go to the peer.
      sending = call;
      const answered = client.request({ method, params } as never, schema, {
        timeout: timeoutMs,
        maxTotalTimeout: timeoutMs,
        ...(signal ? { signal } : {}),
        onprogress: (p) => peer?.progress?.(p),
      });
      sending = undefined;
      const r = await answered;
      return { ok: true, result: r as Record<string, unknown> };
    } catch (e) {
      const code = (e as { code?: number }).code;
      const message = (e as Error).message;
      const answer = receivedData(e);
      if (answer) {
        // Stood in for an answer by toolgate's own transports (never a server's: the marks are random
        // per process): one the protocol refuses, one cut at the message bound (a pipe's line, http-cap.ts).
        const mark = (answer.data as { toolgate?: unknown } | undefined)?.toolgate;
        const ours = message.replace(/^MCP error -?\d+: /, "");
        if (mark === MALFORMED_MARK) return { ok: false, kind: "malformed", message: ours };
        if (mark === CUT_MARK) return { ok: false, kind: "too_large", message: ours };
        // The server's error answer, whatever its code: -32000 and -32001 from a server are its own.
        return { ok: false, kind: "protocol", message, ...(typeof code === "number" ? { code } : {}) };
      }
      // Errors the client made itself: the call cancelled, its timer, the connection closing. The SDK
      // rejects a cancelled request as a RequestTimeout too: the signal is looked at first.
      if (signal?.aborted) return { ok: false, kind: "cancelled", message };
      if (code === types.ErrorCode.RequestTimeout) return { ok: false, kind: "deadline", message };
      if (code === types.ErrorCode.ConnectionClosed) return { ok: false, kind: "transport", message };
      // An HTTP status the server answered a request with (the SDK's HTTP transports' errors carry it as the code).
      if (typeof code === "number") return { ok: false, kind: "protocol", message, code };
      // The SDK's schema refused the answer (a zod error lists its issues): it answered, malformed.
      const issues = (e as { issues?: unknown }).issues;
      if (Array.isArray(issues)) return { ok: false, kind: "malformed", message: whereRefused(issues) };
      return { ok: false, kind: "transport", message };
    } finally {
      call.leave();
    }
  }
}
