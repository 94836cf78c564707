// A call a signal interrupted (SIGINT/SIGTERM at the entry point, a session client's Ctrl-C): the
// pipeline's classification of it, whatever the adapter made of its aborted run. Exit 130 or 143 follow
// from the result (result.ts, exitCodeFor); a cancel with no signal behind it (serve's drain, a served
// client's cancel, `tasks cancel`) keeps the adapter's own answer.
import { Interrupted, type InterruptSignal, type Refusal } from "../result/result.ts";

/** The signal behind an aborted cancellation, when a signal caused it. */
export const interruptedBy = (signal: AbortSignal | undefined): InterruptSignal | undefined =>
  signal?.aborted && signal.reason instanceof Interrupted ? signal.reason.signal : undefined;

/**
 * What a call `signal` interrupted answers, from what its adapter said: `cancelled` when nothing can be
 * left in flight (its processes were ended with their trees), `interrupted` (indeterminate) when the
 * adapter says a remote effect may be pending. Never `deadline`: the signal ended it, not a timer.
 */
export function interruptedRefusal(signal: InterruptSignal, answered: Refusal): Refusal {
  const d = answered.details;
  const own = d === undefined ? {} : d !== null && typeof d === "object" && !Array.isArray(d) ? d : { answer: d };
  const message = `interrupted by ${signal}: ${answered.message}`;
  const details = { ...own, signal };
  const operator = answered.operator === undefined ? {} : { operator: answered.operator };
  return answered.indeterminate
    ? { code: "interrupted", message, details, indeterminate: true, ...operator }
    : { code: "cancelled", message, details, ...operator };
}

/** A call interrupted after its steps 1-5 passed and before anything of it ran. */
export const interruptedBeforeStart = (signal: InterruptSignal, tool: string): Refusal => ({
  code: "cancelled",
  message: `interrupted by ${signal} before ${tool} started: nothing of it ran`,
  details: { signal },
});
