// Steps 6-7 of a call: the adapter's run under the call's deadline and cancellation. The
// cancellation is made when the adapter first looks at it (most never do) or the deadline passes;
// its listeners on the outer signals are removed once the adapter is done (`stop` is shared by
// every call of a long-lived process, and would otherwise hold each call's controller for good).
import type { Entry } from "../catalog/catalog.ts";
import type { ProcessRunner, ToolContext } from "../catalog/declare.ts";
import type { Need } from "../permission/types.ts";
import type { Outcome, Refusal } from "../result/result.ts";
import type { InvokeDeps } from "./call-types.ts";
import type { CallRecord } from "./call-record.ts";
import { interruptedBy, interruptedRefusal } from "./interrupted.ts";

/**
 * What a source that times its own runs by --timeout (one with a time limit) gets past it, to answer with its own
 * refusal.
 */
const OWN_TIMER_SLACK_MS = 2_000;

/**
 * The call's timer: the source's deadline (or the default), or the caller's --timeout when it is
 * shorter (scope.timeoutSecs, bounded by the tool's limit before the call), plus the slack for a
 * source that applies it to its own runs (bash, an authored tool, an MCP request: their adapters
 * declare a time limit). `statedMs` is the deadline a refusal names.
 */
export function deadlineOf(
  entry: Entry | undefined,
  deps: Pick<InvokeDeps, "deadlineMs" | "scope">,
): { deadlineMs: number; statedMs: number } {
  const time = entry?.terms.time;
  const own = time?.kind === "own" ? time.deadlineMs : deps.deadlineMs;
  const asked = deps.scope.timeoutSecs === undefined ? undefined : deps.scope.timeoutSecs * 1000;
  if (asked === undefined || asked >= own) return { deadlineMs: own, statedMs: own };
  return {
    deadlineMs: Math.min(own, asked + (time?.kind === "own" && time.limit !== null ? OWN_TIMER_SLACK_MS : 0)),
    statedMs: asked,
  };
}

/** The adapter's answer, or a deadline refusal that is final (no boundary to pass: nothing came back). */
export type Ran = Outcome<unknown> | { readonly final: Refusal };

export class CallRun {
  #controller: AbortController | undefined;
  /**
   * The removers of the outer listeners; undefined once the adapter is done (a late first look gets a controller
   * that listens to nothing).
   */
  #detach: (() => void)[] | undefined = [];

  constructor(
    readonly entry: Entry,
    readonly deps: InvokeDeps,
    readonly rec: CallRecord,
  ) {}

  cancellation(): AbortController {
    if (this.#controller) return this.#controller;
    const c = (this.#controller = new AbortController());
    if (!this.#detach) return c;
    for (const outer of [this.deps.signal, this.deps.stop]) {
      if (!outer) continue;
      if (outer.aborted) {
        c.abort();
        continue;
      }
      const onAbort = () => c.abort();
      outer.addEventListener("abort", onAbort, { once: true });
      this.#detach.push(() => outer.removeEventListener("abort", onAbort));
    }
    return c;
  }

  /** The tool's context: the call's scope, the needs as checked, and the runner and signal made on first use. */
  context(checked: Need[]): ToolContext {
    const { deps, rec } = this;
    const self = this;
    let processes: ProcessRunner | undefined; // most tools run no process
    return {
      ...deps.scope,
      checked,
      get processes() {
        return (processes ??= deps.processes(self.cancellation().signal, rec.secrets()));
      },
      get signal() {
        return self.cancellation().signal;
      },
      now: deps.now,
      record: rec.record,
    };
  }

  async run(
    run: (args: unknown, ctx: ToolContext) => Promise<Outcome<unknown>>,
    value: unknown,
    checked: Need[],
  ): Promise<Ran> {
    const { entry, deps, rec } = this;
    const name = entry.name;
    const { deadlineMs, statedMs } = deadlineOf(entry, deps);
    const ctx = this.context(checked);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let ran: Outcome<unknown> | "deadline";
    try {
      ran = await new Promise<Outcome<unknown> | "deadline">((resolve, reject) => {
        timer = setTimeout(resolve, deadlineMs, "deadline");
        run(value, ctx).then(resolve, reject);
      });
    } finally {
      clearTimeout(timer);
      for (const off of this.#detach!) off();
      this.#detach = undefined;
    }
    if (ran === "deadline") {
      this.cancellation().abort();
      // A tool outside this process may have acted: its effect is unknown, never a plain failure.
      const remote = entry.terms.acts === "outside";
      const unknown = remote ? "; the effect is unknown and the call is not replayed" : "";
      // Still running after a signal cancelled it: the signal ended it (below), not the deadline.
      const after = interruptedBy(deps.signal) ? `${name} had not stopped when its time ran out${unknown}` : undefined;
      ran = {
        ok: false,
        refusal: {
          code: "deadline",
          message: after ?? `${name} did not finish within ${statedMs / 1000} s${unknown}`,
          ...(remote ? { indeterminate: true as const } : {}),
        },
      };
      if (after === undefined) return { final: ran.refusal };
    }
    // A signal interrupted the run: the result says so, with the signal, whatever the adapter answered
    // (its refusal's details, such as a command's tails, still pass the boundary).
    const by = interruptedBy(deps.signal);
    if (by && !ran.ok) {
      rec.record({ signal: by });
      return { ok: false, refusal: interruptedRefusal(by, ran.refusal) };
    }
    return ran;
  }
}
