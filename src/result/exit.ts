// A result's exit code, from the refusal registry (codes.ts). Apart from result.ts so that only
// the commands that print a result load the registry: on every start it would cost about 0.15 ms.
import { CODES, isCode } from "./codes.ts";
import { ExitCode, INTERRUPTED_CODES, INTERRUPTS, interruptOf, type Envelope } from "./result.ts";

/**
 * A call a signal ended exits 130 (SIGINT) or 143 (SIGTERM). A failed result exits 1 unless its
 * code's entry says otherwise (4: a permission or an approval was refused; 5: the lock refuses the
 * tool). The code is looked up, not trusted: a result read back (a task's, a session's) may carry any string.
 */
export function exitCodeFor(env: Envelope): ExitCode {
  if (env.status === "success") return ExitCode.success;
  const signal = INTERRUPTED_CODES.has(env.error_code) ? interruptOf(env.details) : undefined;
  if (signal !== undefined) return INTERRUPTS[signal];
  if (env.status === "indeterminate") return ExitCode.indeterminate;
  const c = isCode(env.error_code) ? CODES[env.error_code] : undefined;
  return c?.outcome === "failed" && (c.exit === ExitCode.denied || c.exit === ExitCode.boot) ? c.exit : ExitCode.failed;
}
