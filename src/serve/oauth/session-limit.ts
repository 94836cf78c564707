// The sessions a caller may hold open at once under serve --http --oauth-issuer (its rule's
// concurrent_sessions). A caller's sessions are the live ones it opened and the ones it is opening
// now: a seat is taken before the session joins the table, so two initializes at once cannot both
// pass. One more is refused with how to free one (DELETE a session, or let one end idle) and how
// long until the first would end idle. Only a caller's own sessions count against it; an ended
// one (deleted, idle past the bound, closed) frees its seat at once.
import type { Session, SessionTable } from "../sessions.ts";

/** A session being opened: counted against its caller until it joins the table or fails. */
export interface Seat {
  /** The session this seat is for, once made. */
  hold(session: Session): void;
  /** Called when the initialize is answered (the session joined the table, or never will). */
  release(): void;
}

export type Taken = { readonly seat: Seat } | { readonly refused: string; readonly wait: number };

export class CallerSessions {
  readonly #opening = new Map<string, Set<{ session?: Session }>>();

  constructor(
    private readonly table: SessionTable,
    private readonly now: () => number,
    /** The path a client sends DELETE to (/mcp), for the refusal's words. */
    private readonly endpoint: string,
  ) {}

  /** A seat for one more session of the caller `key`, who may hold `max`; or why not and the seconds to wait. */
  async take(key: string, max: number): Promise<Taken> {
    // Sessions idle past the bound end first: they free their seats.
    await this.table.sweep();
    const owned = this.table.ownedBy(key);
    const opening = this.#opening.get(key) ?? new Set();
    // A session that joined the table is counted there, not as opening.
    const pending = [...opening].filter((o) => o.session?.transport.sessionId === undefined);
    if (owned.length + pending.length >= max) {
      const now = this.now();
      const idle = this.table.idleMs;
      // A busy session (or one still opening) ends a whole idle bound after its last answer at the soonest.
      const ends = Math.min(
        ...owned.map((s) => (s.pending.size === 0 ? s.lastSeen : now) + idle),
        ...(pending.length ? [now + idle] : []),
      );
      const wait = Math.max(1, Math.ceil((ends - now) / 1000));
      const minutes = Math.round(idle / 60_000);
      return {
        wait,
        refused:
          `Too Many Requests: this caller may hold ${max} session${max === 1 ? "" : "s"} (Mcp-Session-Id) ` +
          `open at once; end one with DELETE ${this.endpoint} and its Mcp-Session-Id header, or wait until one ` +
          `ends after ${minutes >= 1 ? `${minutes} min` : `${Math.ceil(idle / 1000)} s`} without a request (the ` +
          `first in ${wait} s)`,
      };
    }
    const entry: { session?: Session } = {};
    opening.add(entry);
    this.#opening.set(key, opening);
    return {
      seat: {
        hold: (session) => void (entry.session = session),
        release: () => {
          opening.delete(entry);
          if (opening.size === 0 && this.#opening.get(key) === opening) this.#opening.delete(key);
        },
      },
    };
  }
}
