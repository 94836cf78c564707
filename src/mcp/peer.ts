// What the caller of one MCP call can do for the server while the call runs: answer an
// elicitation (a form for the person, or a relay to an upstream client), relay sampling (toolgate
// holds no model), show progress, see the server's log lines. A session routes a server's request
// to the one call in flight; with none, or several (a shared served connection), nobody is asked:
// declined. A log line goes to the call it belongs to, and never to anyone else's.
/** An `elicitation/create` in form mode, as the server sent it (untrusted). */
export interface ElicitForm {
  readonly message: string;
  readonly requestedSchema: {
    readonly type?: unknown;
    readonly properties?: Record<string, unknown>;
    readonly required?: unknown;
  };
}

export interface ElicitAnswer {
  readonly action: "accept" | "decline" | "cancel";
  readonly content?: Record<string, unknown>;
}

export interface Progress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** What toolgate declares to a server at initialize that it can take: form elicitation, sampling. */
export interface Declared {
  readonly elicitation: boolean;
  readonly sampling: boolean;
}

export interface Peer {
  /**
   * Who the call is made for (in `serve`, the client that asked): the calls of one owner may see
   * each other's log lines. A call without one is its own owner.
   */
  readonly owner?: object;
  /** Asks for the form; absent: the server's elicitation is declined. */
  elicit?(form: ElicitForm, signal: AbortSignal): Promise<ElicitAnswer>;
  /** Relays `sampling/createMessage` (its params) and returns the answer; absent: refused. */
  sample?(params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>>;
  /** One progress notification of this call. */
  progress?(p: Progress): void;
  /** A `notifications/message` the server logged while this call ran (its params). */
  log?(params: Record<string, unknown>): void;
  /** How the call's elicitations ended, for its journal row (never the values) and the operator. */
  elicited?(outcome: ElicitAnswer["action"], why?: string): void;
  /**
   * What the server is to be told this caller can take (serve --expose: what its client declared):
   * the request goes on a connection that declared exactly that. Absent: the shared connection.
   */
  readonly upstream?: Declared;
}

export const NO_MODEL = "toolgate holds no model, so it cannot answer sampling/createMessage";

type Id = string | number;

/** One call in flight: its peer and, once sent, its request's id on the connection. */
export interface InFlight {
  readonly peer: Peer;
  id?: Id;
}

/**
 * Where a server's log message went: to a call (`call`: that call's peer shows it, when the call
 * is still in flight and its peer can); to nobody's call, none being in flight and nothing tying
 * it to one (`outside`: the session's listener has it); or nowhere (`unclear`: calls of several
 * owners were in flight and nothing tied it to one).
 */
export type LogRoute = "call" | "outside" | "unclear";

/** The calls in flight on one connection, each with its peer: a server's request goes to the only one. */
export class Peers {
  readonly #live = new Set<InFlight>();

  /** A call from now until `leave()`; set its `id` once its request is sent. */
  enter(peer: Peer): InFlight & { leave(): void } {
    const call: InFlight & { leave(): void } = { peer, leave: () => void this.#live.delete(call) };
    this.#live.add(call);
    return call;
  }

  /** The peer a server request belongs to, or why there is none. */
  only(): { peer: Peer } | { why: string } {
    if (this.#live.size === 1) return { peer: [...this.#live][0]!.peer };
    return {
      why:
        this.#live.size === 0
          ? "no call of toolgate's is in flight on this connection"
          : "several calls are in flight on this connection, so whose person to ask is unknown",
    };
  }

  /**
   * A server's log message, to the call it belongs to: the call whose request `related` names
   * (it came on that request's own stream; dropped when that call is over, as it is nobody
   * else's), else, with nothing tying it, the calls in flight when they are all one owner's.
   * Calls of several owners in flight and nothing tying it: nobody's to see (a log line may say
   * what its server was asked, and for whom).
   */
  log(params: Record<string, unknown>, related?: Id): LogRoute {
    if (related !== undefined) {
      for (const c of this.#live) if (c.id === related) c.peer.log?.(params);
      return "call";
    }
    if (this.#live.size === 0) return "outside";
    const calls = [...this.#live];
    const owner = calls[0]!.peer.owner ?? calls[0]!.peer;
    if (calls.some((c) => (c.peer.owner ?? c.peer) !== owner)) return "unclear";
    calls.find((c) => c.peer.log)?.peer.log?.(params);
    return "call";
  }

  /** A server's elicitation/create: asked through the call's peer when it can ask, else declined. */
  async elicit(params: Record<string, unknown>, signal: AbortSignal): Promise<ElicitAnswer> {
    const owner = this.only();
    if ("why" in owner) return { action: "decline" };
    const { peer } = owner;
    if (
      (params.mode ?? "form") !== "form" ||
      typeof params.requestedSchema !== "object" ||
      params.requestedSchema === null
    ) {
      peer.elicited?.("decline", "only form elicitations are supported");
      return { action: "decline" };
    }
    if (!peer.elicit) {
      peer.elicited?.("decline");
      return { action: "decline" };
    }
    const form: ElicitForm = {
      message: typeof params.message === "string" ? params.message : "",
      requestedSchema: params.requestedSchema as ElicitForm["requestedSchema"],
    };
    let answer: ElicitAnswer;
    try {
      answer = await peer.elicit(form, signal);
    } catch (e) {
      peer.elicited?.("decline", (e as Error).message);
      return { action: "decline" };
    }
    peer.elicited?.(answer.action);
    return answer;
  }

  /** A server's sampling/createMessage: relayed when the call's peer can, else an error naming why. */
  async sample(params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
    const owner = this.only();
    if ("peer" in owner && owner.peer.sample) return owner.peer.sample(params, signal);
    throw new Error(
      `${NO_MODEL}${"why" in owner ? ` (${owner.why})` : " and the caller cannot relay it"}; the request is declined`,
    );
  }
}
