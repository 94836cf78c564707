// The HTTP sessions of `serve --http`, bounded and never a lock-out
// (docs/mcp.md). A session is busy while a request of its client is unanswered, idle otherwise. An idle
// session ends once it has been idle past the idle bound (swept every minute and before each new
// session); at the cap the least recently used idle session ends to make room, and its client
// gets 404 and initializes again, as MCP says. Only when every session is busy is a new one
// refused (503, retry shortly). Each session's SSE events carry ids and the client's `retry` is
// set, so a client that reconnects with Last-Event-ID gets what it missed (event-log.ts).
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { EventLog } from "./event-log.ts";

/** Sessions open at once; at the cap the least recently used idle one ends for a new one. */
export const MAX_SESSIONS = 32;
/** An idle session ends after this long without a request. */
export const SESSION_IDLE_MS = 30 * 60_000;
/** How often idle sessions are looked for. */
export const SWEEP_MS = 60_000;
/** The SSE `retry` given to clients: how long to wait before reconnecting a stream that closed. */
export const RETRY_MS = 1_000;

type Id = string | number;

export interface Session {
  readonly transport: WebStandardStreamableHTTPServerTransport;
  /** When a request of this session last arrived or was answered. */
  lastSeen: number;
  /** Requests of its client not answered yet. */
  readonly pending: Set<Id>;
  /** The caller that opened it (--oauth-issuer): only that caller's requests reach it. */
  owner?: string | undefined;
}

export interface SessionOptions {
  readonly now: () => number;
  readonly max?: number;
  readonly idleMs?: number;
  /** One operator line (stderr), e.g. when a session is ended to make room. */
  readonly log?: (line: string) => void;
}

/** What a transport is made with: the session's event log and retry, and where it reports its id. */
export interface TransportParts {
  readonly eventStore: EventLog;
  readonly retryInterval: number;
  readonly onsessioninitialized: (id: string) => void;
}

export class SessionTable {
  readonly #live = new Map<string, Session>();
  readonly #max: number;
  readonly #idleMs: number;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly o: SessionOptions) {
    this.#max = o.max ?? MAX_SESSIONS;
    this.#idleMs = o.idleMs ?? SESSION_IDLE_MS;
  }

  get size(): number {
    return this.#live.size;
  }

  /** How long a session may stay idle before it ends. */
  get idleMs(): number {
    return this.#idleMs;
  }

  /** The live sessions `owner` opened. */
  ownedBy(owner: string): Session[] {
    return [...this.#live.values()].filter((s) => s.owner === owner);
  }

  /** The session of this id, marked as just seen; undefined when it is unknown or ended. */
  get(id: string): Session | undefined {
    const s = this.#live.get(id);
    if (s) s.lastSeen = this.o.now();
    return s;
  }

  /**
   * Room for `opening` sessions being opened (this one counted): idle ones past the idle bound end
   * first, then the least recently used idle ones. False only when every session is busy.
   */
  async room(opening: number): Promise<boolean> {
    await this.sweep();
    const ending: Session[] = [];
    if (this.#live.size + opening > this.#max) {
      const idle = [...this.#live.values()].filter((s) => s.pending.size === 0).sort((a, b) => a.lastSeen - b.lastSeen);
      ending.push(...idle.slice(0, this.#live.size + opening - this.#max));
    }
    if (ending.length > 0)
      this.o.log?.(
        `${ending.length === 1 ? "an idle session was" : `${ending.length} idle sessions were`} ended to make ` +
          `room (at most ${this.#max} at once); ` +
          `${ending.length === 1 ? "its client initializes" : "their clients initialize"} again`,
      );
    await Promise.all(ending.map((s) => this.#end(s)));
    return this.#live.size + opening <= this.#max;
  }

  /** Ends the sessions idle past the idle bound. */
  async sweep(): Promise<void> {
    const now = this.o.now();
    await Promise.all(
      [...this.#live.values()]
        .filter((s) => s.pending.size === 0 && now - s.lastSeen > this.#idleMs)
        .map((s) => this.#end(s)),
    );
  }

  /** Sweeps every SWEEP_MS until closeAll (the timer keeps nothing alive). */
  startSweeping(): void {
    this.#timer ??= setInterval(() => void this.sweep(), SWEEP_MS);
    this.#timer.unref?.();
  }

  /**
   * A new session over the transport `make` builds from its parts; it joins the table once the
   * transport has a session id (a refused initialize never does). `serve` connects it to the hub,
   * then calls watch().
   */
  create(make: (parts: TransportParts) => WebStandardStreamableHTTPServerTransport): Session {
    const parts: TransportParts = {
      eventStore: new EventLog(),
      retryInterval: RETRY_MS,
      onsessioninitialized: (id) => void this.#live.set(id, session),
    };
    const session: Session = { transport: make(parts), lastSeen: this.o.now(), pending: new Set() };
    session.transport.onclose = () => {
      const id = session.transport.sessionId;
      if (id !== undefined && this.#live.get(id) === session) this.#live.delete(id);
    };
    return session;
  }

  /**
   * Counts the session's unanswered requests (busy while any is): called once its MCP server is
   * connected, since that sets the transport's onmessage. A cancelled request counts as answered.
   */
  watch(s: Session): void {
    const t = s.transport;
    const onmessage = t.onmessage;
    t.onmessage = (m, extra) => {
      const msg = m as { id?: Id; method?: string; params?: { requestId?: Id } };
      if (msg.method !== undefined && msg.id !== undefined) s.pending.add(msg.id);
      else if (msg.method === "notifications/cancelled" && msg.params?.requestId !== undefined)
        s.pending.delete(msg.params.requestId);
      s.lastSeen = this.o.now();
      onmessage?.call(t, m, extra);
    };
    const send = t.send.bind(t);
    t.send = (m: JSONRPCMessage, options) => {
      const msg = m as { id?: Id; method?: string };
      if (msg.method === undefined && msg.id !== undefined) {
        s.pending.delete(msg.id);
        s.lastSeen = this.o.now();
      }
      return send(m, options);
    };
  }

  async #end(s: Session): Promise<void> {
    await s.transport.close().catch(() => {});
  }

  /** Ends every session and stops sweeping. */
  async closeAll(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await Promise.all([...this.#live.values()].map((s) => this.#end(s)));
  }
}
