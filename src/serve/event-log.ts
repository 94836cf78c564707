// One HTTP session's SSE events, kept so a client that reconnects with Last-Event-ID gets what it
// missed (the SDK transport's EventStore): ids count up from 1 within the session, each event
// remembers its stream. Bounded: the oldest go first past MAX_EVENTS or MAX_BYTES; the log dies
// with its session.
import type { EventStore } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

export const MAX_EVENTS = 1_000;
/** Serialized bytes kept per session (a served result is at most 64 KiB past the output boundary). */
export const MAX_BYTES = 2 * 1024 * 1024;

interface Stored {
  readonly stream: string;
  readonly message: JSONRPCMessage;
  readonly bytes: number;
}

export class EventLog implements EventStore {
  readonly #events: Stored[] = [];
  /** The id of #events[0]. */
  #first = 1;
  #bytes = 0;

  constructor(
    private readonly maxEvents = MAX_EVENTS,
    private readonly maxBytes = MAX_BYTES,
  ) {}

  async storeEvent(stream: string, message: JSONRPCMessage): Promise<string> {
    const bytes = JSON.stringify(message).length;
    this.#events.push({ stream, message, bytes });
    this.#bytes += bytes;
    while (this.#events.length > 1 && (this.#events.length > this.maxEvents || this.#bytes > this.maxBytes)) {
      this.#bytes -= this.#events.shift()!.bytes;
      this.#first++;
    }
    return String(this.#first + this.#events.length - 1);
  }

  #at(eventId: string): number {
    const n = /^[1-9]\d{0,15}$/.test(eventId) ? Number(eventId) - this.#first : -1;
    return n >= 0 && n < this.#events.length ? n : -1;
  }

  /** The stream an id belongs to; undefined for an id never given or no longer kept (the transport answers 400). */
  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const at = this.#at(eventId);
    return at < 0 ? undefined : this.#events[at]!.stream;
  }

  /** Sends the stream's events after `lastEventId`, in order; a priming event (no message) is not sent again. */
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const at = this.#at(lastEventId);
    if (at < 0) return "";
    const stream = this.#events[at]!.stream;
    // A copy: sending may store (and trim) while it runs.
    const after = this.#events.slice(at + 1).map((e, i) => ({ ...e, id: this.#first + at + 1 + i }));
    for (const e of after)
      if (e.stream === stream && (e.message as { jsonrpc?: unknown }).jsonrpc !== undefined)
        await send(String(e.id), e.message);
    return stream;
  }
}
