// The sealed result vocabulary and the exit codes (SPEC.md: Results, Exit codes).
// Every stage and handler answers with these values; only the entry point maps them to exit codes.

export type Status = "success" | "failed" | "indeterminate";

export interface Success {
  readonly status: "success";
  readonly tool: string;
  readonly payload: unknown;
}

export interface Failed {
  readonly status: "failed";
  /** Absent only in the boundary's fixed `sensitive_output_rejected` object. */
  readonly tool?: string;
  readonly error_code: string;
  readonly message?: string;
  readonly details?: unknown;
}

export interface Indeterminate {
  readonly status: "indeterminate";
  readonly tool: string;
  readonly error_code: string;
  readonly message?: string;
}

export type Envelope = Success | Failed | Indeterminate;

/** A typed refusal: a stable code plus a message that says how to fix it. */
export interface Refusal {
  readonly code: string;
  readonly message: string;
  readonly details?: unknown;
  /** The transport failed mid-call: the remote effect is unknown (recorded, never replayed). */
  readonly indeterminate?: true;
  /** The source's own answer behind this refusal (an MCP `isError` result): what the output boundary checks. */
  readonly raw?: unknown;
  /**
   * More for the operator view only (stderr), such as a crashed server's stderr tail: untrusted
   * text that never reaches the model view or the journal (secrets are still redacted from it).
   */
  readonly operator?: string;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

export const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
export const refuse = (code: string, message: string, details?: unknown): { ok: false; refusal: Refusal } =>
  ({ ok: false, refusal: details === undefined ? { code, message } : { code, message, details } });

export const ExitCode = {
  success: 0,
  failed: 1,
  usage: 2,
  indeterminate: 3,
  denied: 4,
  boot: 5,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** Codes that mean "a permission or an approval was refused" (exit 4). */
// mcp.auth_required: the server refuses toolgate until the user authorizes it (`toolgate auth`), a grant like a permission's.
const DENIAL_CODES = new Set(["permission.denied", "approval.required", "approval.denied", "approval.child_unattended", "mcp.auth_required"]);
/** Codes that mean "the boot itself failed" (exit 5). */
const BOOT_CODES = new Set(["descriptor_changed", "descriptor_unpinned"]);

export function exitCodeFor(env: Envelope): ExitCode {
  if (env.status === "success") return ExitCode.success;
  if (env.status === "indeterminate") return ExitCode.indeterminate;
  if (DENIAL_CODES.has(env.error_code)) return ExitCode.denied;
  if (BOOT_CODES.has(env.error_code)) return ExitCode.boot;
  return ExitCode.failed;
}

/**
 * A name toolgate does not know and the names it could have meant: the entry point adds the nearest
 * to the message (result/suggest.ts, loaded only then), for refusals made on every start's path.
 */
export interface UnknownName {
  readonly name: string;
  readonly among: readonly string[];
  /** How the suggestion is written (default: quoted). */
  readonly show?: (name: string) => string;
}

/** An error the CLI turns into a message on stderr and an exit code; never a tool result. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    readonly hint?: string,
    readonly unknown?: UnknownName,
  ) {
    super(message);
    this.name = "CliError";
  }
}

export const usageError = (message: string, hint?: string, unknown?: UnknownName) => new CliError(ExitCode.usage, message, hint, unknown);
export const bootError = (message: string, hint?: string) => new CliError(ExitCode.boot, message, hint);
