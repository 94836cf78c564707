// How serve runs a tool: the one seam between what clients ask (hub.ts, relay.ts) and this
// process's Runtime (runtime/runtime.ts, the same as `toolgate call`'s). A served tools/call runs a
// catalog tool by name; a relayed request (resources, prompts, completions, logging) runs its own
// one-entry catalog (relay-entry.ts, as the Caller's entry). A shutdown drains the Runtime: new
// calls are refused (each journaled), the rest finish within the grace, then are cancelled.
import type { ApprovalAnswer, ApprovalRequest } from "../approval/approval.ts";
import type { Entry } from "../catalog/catalog.ts";
import { escapeControl } from "../result/escape.ts";
import type { Refusal } from "../result/result.ts";
import type { CallWiring } from "../runtime/call-deps.ts";
import type { Invoked, Profile } from "../runtime/invoke.ts";
import type { Caller, Runtime } from "../runtime/runtime.ts";
import { checkpointWhenIdle } from "../state/db.ts";
import type { ServedCaller } from "./caller.ts";

/**
 * How one request runs: its cancellation, who is asked, its peer, the session's remembered approvals, the client's
 * trace, its caller.
 */
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
  /**
   * One relayed request: `entry` as the only entry of a catalog of its own (no profile; only the shutdown refuses
   * it).
   */
  callEntry(entry: Entry, args: Record<string, unknown>, how: Calling): Promise<Called>;
  /** From now on every call is refused; calls in flight get `graceMs` to finish, then are cancelled and awaited. */
  drain(graceMs: number): Promise<void>;
}

export interface PipelineCallerDeps {
  readonly runtime: Runtime;
  /**
   * What every call of this serve shares: its lane, --approve names, the operator, what to do when a row cannot be
   * written.
   */
  readonly caller: Pick<Caller, "lane" | "approved" | "operator" | "unstarted" | "unfinished">;
  readonly profile: Profile;
  /** No human behind this session (--child). */
  readonly child: boolean;
  /** Tools refused right now by a supervised source (a changed descriptor after a restart), by name. */
  readonly refusedNow?: (name: string) => Refusal | undefined;
  /** The names a client is served, for the nearest to an unknown one. */
  readonly callable: () => string[];
}

const SHUTTING_DOWN: Refusal = {
  code: "serve.shutting_down",
  message: "toolgate serve is shutting down; the call was not run",
};

/** Serve's calls, as the Runtime's: each request's `how` made a Caller. */
export class PipelineCaller implements ToolCaller {
  /** After each call: the journal's WAL is checkpointed once calls pause, not inside one. */
  #wrote: (() => void) | undefined;
  /** What every call shares (a call adds its cancellation, who is asked, its peer and trace). */
  #shared: Caller | undefined;
  /** The same, narrowed for each caller (made on the caller's first call). */
  readonly #callerShared = new WeakMap<ServedCaller, Caller>();

  constructor(private readonly deps: PipelineCallerDeps) {}

  call(name: string, args: unknown, how: Calling): Promise<Called> {
    return this.#run(name, args, how, undefined);
  }

  callEntry(entry: Entry, args: Record<string, unknown>, how: Calling): Promise<Called> {
    return this.#run(entry.name, args, how, entry);
  }

  async #run(name: string, args: unknown, how: Calling, entry: Entry | undefined): Promise<Called> {
    const { runtime, child } = this.deps;
    const origin = (entry ?? runtime.booted.catalog.entries.get(name))?.origin;
    const shared = (this.#shared ??= {
      ...this.deps.caller,
      ask: undefined,
      unattended: child,
      profile: this.deps.profile,
      // An unknown name's nearest is one this client is served (its own spelling, in its profile).
      callable: this.deps.callable,
      refusedNow: this.deps.refusedNow,
      howToGrant: (t) =>
        child
          ? `start the child with --approve ${t}`
          : `this client cannot be asked (it does not declare the elicitation capability); start toolgate serve ` +
            `with --approve ${t} (or --approve all)`,
    });
    const base = how.caller ? this.#narrowedFor(how.caller, shared) : shared;
    const session = how.remembered;
    const caller: Caller = {
      ...base,
      signal: how.signal,
      ask: how.ask,
      peer: how.peer,
      // A client's trace context (`_meta.traceparent`): the call's span continues its trace.
      trace: how.trace,
      // A relayed request's catalog is its own, of methods: only the shutdown refuses it (the Runtime's drain).
      ...(entry ? { entry, refusedNow: undefined } : {}),
      // The session's approvals; an "always" under a caller is remembered as that caller's too.
      ...(session
        ? {
            approval: (a) => ({
              ...a,
              isRemembered: (t: string, d: string) => session.has(`${t}@${d}`) || a.isRemembered(t, d),
              remember: (t: string, d: string) => void (session.add(`${t}@${d}`), how.caller && a.remember(t, d)),
            }),
          }
        : {}),
    };
    try {
      const invoked = await runtime.call(name, args, caller);
      const { note, operator } = invoked;
      // The operator hears which rule fired where; the client gets the boundary's fixed object.
      if (note !== undefined) this.deps.caller.operator(`toolgate: ${escapeControl(note)}`);
      if (operator !== undefined) this.deps.caller.operator(`toolgate: ${name}: ${escapeControl(operator)}`);
      return { ...invoked, origin };
    } finally {
      (this.#wrote ??= checkpointWhenIdle(runtime.state()))();
    }
  }

  /** A caller's calls: its profile and approvals (its rule's narrowing), its name on the journal rows. */
  #narrowedFor(caller: ServedCaller, shared: Caller): Caller {
    let c = this.#callerShared.get(caller);
    if (!c)
      this.#callerShared.set(
        caller,
        (c = {
          ...shared,
          profile: caller.profile ?? shared.profile,
          approved: caller.approved ?? shared.approved,
          caller: caller.id,
        }),
      );
    return c;
  }

  drain(graceMs: number): Promise<void> {
    return this.deps.runtime.drain(graceMs, SHUTTING_DOWN);
  }
}
