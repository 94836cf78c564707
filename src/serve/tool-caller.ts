// How serve runs a tool: the one seam between what clients ask (hub.ts, relay.ts) and the call
// pipeline (runtime/invoke.ts, with the same wiring as `toolgate call`). A served tools/call runs a
// catalog tool by name; a relayed request (resources, prompts, completions, logging) runs its own
// one-entry catalog (relay-entry.ts). The caller tracks calls in flight so a shutdown refuses new
// ones (each journaled), lets the rest finish within the grace, then cancels them.
import type { ApprovalAnswer, ApprovalRequest } from "../approval/approval.ts";
import type { Entry } from "../catalog/catalog.ts";
import { escapeControl } from "../result/escape.ts";
import type { Refusal } from "../result/result.ts";
import { callDeps, type CallWiring } from "../runtime/call-deps.ts";
import { invoke, type Invoked, type Profile } from "../runtime/invoke.ts";
import { checkpointWhenIdle } from "../state/db.ts";
import type { ServedCaller } from "./caller.ts";

/** How one request runs: its cancellation, who is asked, its peer, the session's remembered approvals, the client's trace, its caller. */
export interface Calling {
  readonly signal: AbortSignal;
  readonly ask?: ((req: ApprovalRequest) => Promise<ApprovalAnswer>) | undefined;
  readonly peer?: CallWiring["peer"];
  readonly remembered?: Set<string> | undefined;
  readonly trace?: CallWiring["trace"];
  readonly caller?: ServedCaller | undefined;
}

/** A call's outcome, with the origin of the tool that ran (the client sees an MCP server's own results as such). */
export type Called = Invoked & { readonly origin: string | undefined };

/** What serve needs to run tools: any runner of the pipeline fits (this file's, or a shared runtime's). */
export interface ToolCaller {
  /** One catalog tool, by its catalog name. */
  call(name: string, args: unknown, how: Calling): Promise<Called>;
  /** One relayed request: `entry` as the only entry of a catalog of its own (no profile; only the shutdown refuses it). */
  callEntry(entry: Entry, args: Record<string, unknown>, how: Calling): Promise<Called>;
  /** From now on every call is refused; calls in flight get `graceMs` to finish, then are cancelled and awaited. */
  drain(graceMs: number): Promise<void>;
}

export interface PipelineCallerDeps {
  /** The wiring `call` uses, minus who is asked (each connection asks its own client). */
  readonly wiring: Omit<CallWiring, "ask" | "unattended" | "howToGrant" | "profile" | "callable">;
  readonly profile: Profile;
  /** No human behind this session (--child). */
  readonly child: boolean;
  /** Tools refused right now by a supervised source (a changed descriptor after a restart), by name. */
  readonly refusedNow?: (name: string) => Refusal | undefined;
  /** The names a client is served, for the nearest to an unknown one. */
  readonly callable: () => string[];
}

const SHUTTING_DOWN: Refusal = { code: "serve.shutting_down", message: "toolgate serve is shutting down; the call was not run" };

/** The pipeline of this process, as serve runs it. */
export class PipelineCaller implements ToolCaller {
  readonly #inflight = new Set<Promise<unknown>>();
  /** Aborted when the drain's grace is over: every call still running is cancelled. */
  readonly #stop = new AbortController();
  #closing = false;
  /** After each call: the journal's WAL is checkpointed once calls pause, not inside one. */
  #wrote: (() => void) | undefined;
  /** The wiring every call shares (a call adds who is asked and its peer). */
  #wiring: CallWiring | undefined;
  /** The same, narrowed for each caller (made on the caller's first call). */
  readonly #callerWiring = new WeakMap<ServedCaller, CallWiring>();

  constructor(private readonly deps: PipelineCallerDeps) {}

  /**
   * What the pipeline refuses at once (so journaled like any refusal): every call once the shutdown
   * began, and a tool its supervised source refuses now. A relayed request has a catalog of its own,
   * of methods: only the shutdown applies to it.
   */
  readonly #closingOnly = (): Refusal | undefined => (this.#closing ? SHUTTING_DOWN : undefined);
  readonly #refusedNow = (name: string): Refusal | undefined => (this.#closing ? SHUTTING_DOWN : this.deps.refusedNow?.(name));

  call(name: string, args: unknown, how: Calling): Promise<Called> {
    return this.#run(name, args, how, undefined);
  }

  callEntry(entry: Entry, args: Record<string, unknown>, how: Calling): Promise<Called> {
    return this.#run(entry.name, args, how, entry);
  }

  async #run(name: string, args: unknown, how: Calling, entry: Entry | undefined): Promise<Called> {
    const origin = (entry ?? this.deps.wiring.booted.catalog.entries.get(name))?.origin;
    const { child } = this.deps;
    const shared = (this.#wiring ??= {
      ...this.deps.wiring,
      ask: undefined,
      unattended: child,
      profile: this.deps.profile,
      // An unknown name's nearest is one this client is served (its own spelling, in its profile).
      callable: this.deps.callable,
      howToGrant: (t) =>
        child
          ? `start the child with --approve ${t}`
          : `this client cannot be asked (it does not declare the elicitation capability); start toolgate serve with --approve ${t} (or --approve all)`,
    });
    const base = how.caller ? this.#narrowedFor(how.caller, shared) : shared;
    // A client's trace context (`_meta.traceparent`): the call's span continues its trace.
    const refusedNow = entry ? this.#closingOnly : this.#refusedNow;
    const deps = callDeps({ ...base, ask: how.ask, refusedNow, ...(how.peer ? { peer: how.peer } : {}), ...(how.trace ? { trace: how.trace } : {}) }, how.signal, this.#stop.signal);
    const session = how.remembered;
    const approval = session
      ? { ...deps.approval, isRemembered: (t: string, d: string) => session.has(`${t}@${d}`) || deps.approval.isRemembered(t, d), remember: (t: string, d: string) => void (session.add(`${t}@${d}`), how.caller && deps.approval.remember(t, d)) }
      : deps.approval;
    const own = entry ? { catalog: { descriptors: [entry], entries: new Map([[name, entry]]) }, profile: undefined, refused: undefined } : {};
    const done = invoke(name, args, session || entry ? { ...deps, approval, ...own } : deps);
    this.#inflight.add(done);
    try {
      const invoked = await done;
      const { note, operator } = invoked;
      // The operator hears which rule fired where; the client gets the boundary's fixed object.
      if (note !== undefined) this.deps.wiring.operator(`toolgate: ${escapeControl(note)}`);
      if (operator !== undefined) this.deps.wiring.operator(`toolgate: ${name}: ${escapeControl(operator)}`);
      return { ...invoked, origin };
    } finally {
      this.#inflight.delete(done);
      (this.#wrote ??= checkpointWhenIdle(this.deps.wiring.db()))();
    }
  }

  /** The wiring of a caller's calls: its profile and approvals (its rule's narrowing), its name on the journal rows. */
  #narrowedFor(caller: ServedCaller, shared: CallWiring): CallWiring {
    let w = this.#callerWiring.get(caller);
    if (!w) this.#callerWiring.set(caller, (w = { ...shared, profile: caller.profile ?? shared.profile, approved: caller.approved ?? shared.approved, caller: caller.id }));
    return w;
  }

  async drain(graceMs: number): Promise<void> {
    this.#closing = true;
    const all = () => Promise.allSettled([...this.#inflight]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = await Promise.race([all().then(() => false), new Promise<boolean>((res) => (timer = setTimeout(() => res(true), graceMs)))]);
    clearTimeout(timer);
    if (late) {
      this.#stop.abort();
      await all();
    }
  }
}
