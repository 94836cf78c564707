// The sealed result vocabulary and the exit codes; the refusal codes are registered in codes.ts.
// Every stage and handler answers with these values; only the entry point maps them to exit codes (exit.ts).

import type { Code } from "./codes.ts";

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
  readonly error_code: Code;
  readonly message?: string;
  readonly details?: unknown;
}

export interface Indeterminate {
  readonly status: "indeterminate";
  readonly tool: string;
  readonly error_code: Code;
  readonly message?: string;
  /** Only on a call a signal interrupted: `{ signal }`. */
  readonly details?: unknown;
}

export type Envelope = Success | Failed | Indeterminate;

/** A typed refusal: a stable code plus a message that says how to fix it. */
export interface Refusal {
  readonly code: Code;
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
export const refuse = (code: Code, message: string, details?: unknown): { ok: false; refusal: Refusal } => ({
  ok: false,
  refusal: details === undefined ? { code, message } : { code, message, details },
});

export const ExitCode = {
  success: 0,
  failed: 1,
  usage: 2,
  indeterminate: 3,
  denied: 4,
  boot: 5,
  /** SIGINT (Ctrl-C) ended the call: 128 + 2, as shells say it. */
  interrupted: 130,
  /** SIGTERM ended the call: 128 + 15. */
  terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The signals that interrupt a call from outside, each with the exit code it gives. */
export const INTERRUPTS = { SIGINT: ExitCode.interrupted, SIGTERM: ExitCode.terminated } as const;
export type InterruptSignal = keyof typeof INTERRUPTS;

/**
 * The reason a call's cancellation is aborted with when a signal caused it (the entry point's
 * SIGINT/SIGTERM, a session client's Ctrl-C): the pipeline names it in the result. An AbortError
 * still, for whatever tells an abort by its name.
 */
export class Interrupted extends DOMException {
  constructor(readonly signal: InterruptSignal) {
    super(`interrupted by ${signal}`, "AbortError");
  }
}

/** The signal that interrupted a call, from its result's details (`{ signal }`), if one did. */
export function interruptOf(details: unknown): InterruptSignal | undefined {
  const s = (details as { signal?: unknown } | null | undefined)?.signal;
  return typeof s === "string" && Object.hasOwn(INTERRUPTS, s) ? (s as InterruptSignal) : undefined;
}

/** The codes of a call a signal ended: nothing left in flight, or a remote effect that may be pending. */
export const INTERRUPTED_CODES = new Set(["cancelled", "interrupted"]);

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

export const usageError = (message: string, hint?: string, unknown?: UnknownName) =>
  new CliError(ExitCode.usage, message, hint, unknown);
export const bootError = (message: string, hint?: string) => new CliError(ExitCode.boot, message, hint);
