// The initialize handshake as toolgate conducts it, between the SDK's client and a transport:
// PinnedProtocol offers one protocol version only (Las), EarlyInitialized sends the initialized
// notification, and the first tools/list behind it, as soon as the server's answer arrives.
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isObject } from "./envelope.ts";
import { PINNED_PROTOCOL } from "./transport.ts";

/**
 * Offers exactly PINNED_PROTOCOL in `initialize` and records what the server negotiated;
 * the caller refuses any other version (a boot failure for Las).
 */
export class PinnedProtocol implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  negotiated: string | undefined;
  #initId: unknown;

  constructor(private readonly inner: Transport) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
    inner.onmessage = (m) => {
      const r = m as { id?: unknown; result?: { protocolVersion?: unknown } };
      if (this.#initId !== undefined && r.id === this.#initId && r.result) {
        this.negotiated = String(r.result.protocolVersion);
        // The SDK would accept any version it knows; toolgate accepts only the pinned one,
        // so report it as pinned to the SDK and let the caller check `negotiated`.
        r.result.protocolVersion = PINNED_PROTOCOL;
      }
      this.onmessage?.(m);
    };
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport["send"]>[1]): Promise<void> {
    const m = message as { method?: string; id?: unknown; params?: { protocolVersion?: string } };
    if (m.method === "initialize" && m.params) {
      this.#initId = m.id;
      message = { ...message, params: { ...m.params, protocolVersion: PINNED_PROTOCOL } } as JSONRPCMessage;
    }
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/**
 * The id of the tools/list sent from EarlyInitialized: an integer (a server may read ids as
 * integers only) that fits 32 bits, signed or not (rmcp read ids as u32 before 0.6.3 and ended on
 * one it could not read, -1 say), and that the SDK never reaches (it numbers its own from 0 up).
 */
const EARLY_LIST_ID = 2 ** 31 - 1;

/**
 * Sends `notifications/initialized` the moment the server's initialize result arrives, before the
 * SDK has parsed it (about 1 ms of a cold call, spent while the server waits for it to begin its own
 * start-up work); the SDK's own notification, once it has, is then not sent a second time. Only for
 * a result of the shape the SDK accepts at its core (a protocol version it supports, capabilities
 * each an object with boolean flags, a serverInfo object, instructions a string if any): an error
 * answer, or any other, gets nothing more from here, and the SDK decides as before. A result that
 * passes this and fails the SDK's whole schema deeper down (a serverInfo icon of the wrong shape,
 * say) has had its notification sent before the SDK closes the connection; nothing else is sent.
 *
 * `listEarly` (a connect lists the tools first thing): the first page of tools/list goes out right
 * behind the notification, under an id of its own, and the SDK's own first tools/list (no cursor)
 * is not sent but handed that answer under its id, so its parsing, deadline and errors are the
 * SDK's as before. The server works on the list while the SDK parses the initialize result (about
 * 1 ms of a cold call). A cancellation the SDK sends for its request goes out for the early one.
 */
export class EarlyInitialized implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  #initId: unknown;
  /** Sent from here: the SDK's own is dropped (once). */
  #sent = false;
  /** The early tools/list: its write, its answer once here, the SDK's id for it once it asked. */
  #list: { written: Promise<void>; answer?: JSONRPCMessage; sdkId?: string | number } | undefined;

  constructor(
    private readonly inner: Transport,
    private readonly supported: readonly string[],
    private readonly listEarly = false,
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (e) => this.onerror?.(e);
    inner.onmessage = (m) => {
      const r = m as { id?: unknown; result?: unknown };
      if (this.#list && r.id === EARLY_LIST_ID && ("result" in r || "error" in r)) {
        this.#list.answer = m;
        this.#handList();
        return;
      }
      if (this.#initId !== undefined && r.id === this.#initId) {
        this.#initId = undefined;
        if ("result" in r && this.#accepted(r.result)) {
          this.#sent = true;
          // A failed write shows as the connection's failure, through the SDK's own request (with
          // listEarly, its tools/list: it fails with the early one's write, below).
          void this.inner.send({ jsonrpc: "2.0", method: "notifications/initialized" }).catch(() => {});
          if (this.listEarly) {
            const written = this.inner.send({ jsonrpc: "2.0", id: EARLY_LIST_ID, method: "tools/list", params: {} });
            written.catch(() => {});
            this.#list = { written };
          }
        }
      }
      this.onmessage?.(m);
    };
  }

  /** The early answer to the SDK, under its own id, once both are here. */
  #handList(): void {
    const l = this.#list;
    if (!l || l.answer === undefined || l.sdkId === undefined) return;
    this.#list = undefined;
    this.onmessage?.({ ...l.answer, id: l.sdkId } as JSONRPCMessage);
  }

  #accepted(result: unknown): boolean {
    if (!isObject(result)) return false;
    const r = result as {
      protocolVersion?: unknown;
      capabilities?: unknown;
      serverInfo?: unknown;
      instructions?: unknown;
    };
    const info = r.serverInfo as { name?: unknown; version?: unknown } | undefined;
    // Each capability an object, its flags (listChanged, subscribe) booleans if there: as the SDK's schema.
    const capable = (c: unknown) =>
      isObject(c) &&
      Object.values(c).every(
        (v) =>
          isObject(v) &&
          Object.entries(v).every(([k, f]) => !["listChanged", "subscribe"].includes(k) || typeof f === "boolean"),
      );
    return (
      typeof r.protocolVersion === "string" &&
      this.supported.includes(r.protocolVersion) &&
      capable(r.capabilities) &&
      isObject(info) &&
      typeof info!.name === "string" &&
      typeof info!.version === "string" &&
      (r.instructions === undefined || typeof r.instructions === "string")
    );
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport["send"]>[1]): Promise<void> {
    const m = message as { method?: string; id?: unknown; params?: { cursor?: unknown; requestId?: unknown } };
    if (m.method === "initialize") this.#initId = m.id;
    if (m.method === "notifications/initialized" && this.#sent) {
      this.#sent = false;
      return Promise.resolve();
    }
    const l = this.#list;
    if (
      l &&
      l.sdkId === undefined &&
      m.method === "tools/list" &&
      m.id !== undefined &&
      m.params?.cursor === undefined
    ) {
      l.sdkId = m.id as string | number;
      // The SDK's request is as sent as the early one: a failed write fails it (a broken pipe at
      // once, not its deadline). The answer is handed on as one arriving after the request was sent.
      return l.written.then(() => queueMicrotask(() => this.#handList()));
    }
    if (l && l.sdkId !== undefined && m.method === "notifications/cancelled" && m.params?.requestId === l.sdkId) {
      this.#list = undefined;
      message = { ...message, params: { ...m.params, requestId: EARLY_LIST_ID } } as JSONRPCMessage;
    }
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
