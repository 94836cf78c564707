// What a refusal code says about how it ends a command: its exit code, its outcome and its
// meaning. The codes themselves are in codes.ts (toolgate's own) and codes-tools.ts (the tools').

/**
 * How a code reaches the user:
 * - `failed`: a result with status "failed" (printed, journaled);
 * - `indeterminate`: a result with status "indeterminate": the effect is unknown (recorded, never replayed);
 * - `either`: "failed" from a built-in tool, "indeterminate" (exit 3) from a tool that runs outside toolgate;
 * - `stderr`: no result: the command stops before any call and says why on stderr (the code itself is not shown);
 * - `journal`: no result: a journal row's code, which `toolgate log` shows.
 */
export type CodeOutcome = "failed" | "indeterminate" | "either" | "stderr" | "journal";

export interface CodeInfo {
  /**
   * The command's exit code (for `either`, the failed one; 130 stands for 130 or 143, by the signal); null when the
   * code ends no command.
   */
  readonly exit: 1 | 2 | 3 | 4 | 5 | 130 | null;
  readonly outcome: CodeOutcome;
  /** One line a user can read: what happened, in general (the refusal's message names the case and the fix). */
  readonly meaning: string;
}
