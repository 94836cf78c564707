// The pipeline's contract with its callers: what `invoke` is handed for one call (InvokeDeps), what
// the permission stage and a profile answer, what a background call hands over, what comes back.
import type { Entry, Catalog } from "../catalog/catalog.ts";
import type { CallScope, ProcessRunner } from "../catalog/declare.ts";
import type { ApprovalDeps } from "../approval/approval.ts";
import type { BoundaryViolation } from "../boundary/boundary.ts";
import type { Check, Need } from "../permission/types.ts";
import type { Envelope, Refusal } from "../result/result.ts";
import type { JournalRow } from "../state/journal.ts";

/** The permission stage's answer for one need: the one check-result type (permission/types.ts). */
export type GateResult = Check;

export interface PermissionGate {
  /** Granted with the canonical value it matched (read/write: the real path), or refused. */
  /** A check that asks someone elsewhere (a session's client) settles later. */
  check(need: Need, reason: string, detail?: () => string): GateResult | Promise<GateResult>;
}

/** Which tools a session offers (src/serve/profiles.ts builds them): it only narrows. */
export interface Profile {
  readonly name: string;
  /** Without args: is the tool listed at all; with the validated args: is this call offered. */
  offers(tool: string, args?: unknown): boolean;
}

export interface InvokeDeps {
  readonly catalog: Catalog;
  /** Why a name is not in the catalog, when a source knows (its server was not started, failed or was withheld). */
  readonly unknown?: (name: string) => Refusal | undefined;
  /**
   * The names this caller can call, for the nearest to an unknown one (default: the catalog's; serve: what the
   * client is served).
   */
  readonly callable?: () => Iterable<string>;
  /** Tools toolgate.lock refuses this boot (descriptor_changed / descriptor_unpinned). */
  readonly refused?: ReadonlyMap<string, Refusal>;
  /**
   * Why a tool is refused at this moment, by the process serving it (serve: a supervised server
   * down or restarting, a descriptor changed at a restart, the shutdown): checked beside the lock's
   * refusals, so such a call is refused before anything is asked and journaled like any other.
   */
  readonly refusedNow?: (name: string) => Refusal | undefined;
  /** The call's scope (workspace, folders, lane, store, config, …), handed to needs() and the handler. */
  readonly scope: CallScope;
  /** The process runner for one call, bound to that call's cancellation signal. */
  /**
   * `masks`: the call's secret values, redacted from the child's output as it is drained (tails, artifacts, a task's
   * live log).
   */
  readonly processes: (signal: AbortSignal, masks: readonly string[]) => ProcessRunner;
  readonly permissions: PermissionGate;
  readonly approval: ApprovalDeps;
  readonly profile?: Profile | undefined;
  readonly dryRun?: boolean; // stop after the permission stage with what the call needs (dryRunReport)
  /** Secret values bound to this call: redacted from every view. */
  readonly secrets: readonly string[];
  /**
   * Writes the call's row as started, after steps 1-5 and before the adapter; throws when it cannot (the call does
   * not run).
   */
  readonly started: (row: JournalRow, facts?: { readonly approval: string }) => void;
  /** The call's one row, final: finishes the started row, or is the whole row of a call refused before it started. */
  readonly journal: (row: JournalRow) => void;
  readonly now: () => number;
  readonly deadlineMs: number;
  /**
   * Cancellation from outside (SIGINT/SIGTERM at the entry point, a served client's cancel): the adapter's run is
   * aborted.
   */
  readonly signal?: AbortSignal;
  /** A second such signal, shared by every call of a process (serve's drain after its grace). */
  readonly stop?: AbortSignal;
  /**
   * A background call (`call --background`): after steps 1-5 pass, the call is handed here (to
   * become a task) instead of running: the task's id, or a refusal (a busy write scope),
   * journaled like any other.
   */
  readonly admit?: (admitted: Admitted) => { readonly task: string } | Refusal;
}

/**
 * What the foreground granted a call: the validated arguments, each need with the value it was granted as, the
 * approval.
 */
export interface Admitted {
  readonly entry: Entry;
  readonly value: unknown;
  readonly grants: readonly { readonly need: Need; readonly value: string | undefined }[];
  readonly approvedBy: string;
  readonly preview: string;
}

export interface Invoked {
  readonly envelope: Envelope;
  /** Which boundary rule fired and where, when one did (never the value). */
  readonly violation?: BoundaryViolation;
  /** The operator's line for a rejection (stderr): the tool, the rule and where, never the value. */
  readonly note?: string;
  /** More for the operator only (stderr), such as a lost server's stderr tail: never in the envelope. */
  readonly operator?: string;
  /** The task a background call became (admit). */
  readonly task?: string;
}
