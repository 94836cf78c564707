// One call's journal row and its result, built as the pipeline goes: the row's fixed columns
// (time, tool, origin, digest, effect, the arguments' preview), the facts the adapter recorded, and
// the finish: the result past redaction and the output boundary, classified, journaled once.
import type { Entry } from "../catalog/catalog.ts";
import { checkBoundary, SENSITIVE_OUTPUT_REJECTED, type BoundaryViolation } from "../boundary/boundary.ts";
import { previewArgs, redactValue } from "../boundary/redact.ts";
import type { Envelope, Outcome, Refusal } from "../result/result.ts";
import type { JournalRow } from "../state/journal.ts";
import type { InvokeDeps, Invoked } from "./call-types.ts";
import { boundaryFor } from "./stages.ts";
import { rejectionNote } from "./rejection-note.ts";
import { interruptedBeforeStart, interruptedBy } from "./interrupted.ts";

export class CallRecord {
  readonly #started: number;
  /** The preview depends on the arguments and the secrets only: made once while the secrets stay the same list. */
  #preview: { of: readonly string[]; length: number; text: string } | undefined;
  /** What the adapter recorded (ctx.record), and the signal that interrupted it. */
  #recorded: Record<string, string> = {};
  /** Set once the result reaches the boundary with the local-path rule off: every such row says so. */
  #offDetail = {};

  constructor(
    readonly name: string,
    readonly entry: Entry | undefined,
    readonly args: unknown,
    readonly deps: Pick<InvokeDeps, "now" | "journal" | "secrets">,
  ) {
    this.#started = deps.now();
  }

  /**
   * The call's secret values, read at each use: a source's list can grow during the call (an OAuth token read or
   * refreshed).
   */
  secrets = (): readonly string[] => {
    const own = this.entry?.terms.secrets;
    return own?.length ? [...this.deps.secrets, ...own] : this.deps.secrets;
  };

  /** What the journal's preview shows of `value` (the source's audit view of it, when it has one). */
  preview(value: unknown, secrets: readonly string[] = this.secrets()): string {
    const audit = this.entry?.terms.audit;
    return previewArgs(audit ? audit(value) : value, 240, secrets);
  }

  record = (facts: Readonly<Record<string, string>>): void => void (this.#recorded = { ...this.#recorded, ...facts });

  row(status: string, error_code: string | null, result_bytes: number, detail: string | null): JournalRow {
    const s = this.secrets();
    const p = this.#preview;
    if (p?.of !== s || p.length !== s.length)
      this.#preview = { of: s, length: s.length, text: this.preview(this.args, s) };
    return {
      time_ms: this.#started,
      tool: this.name,
      origin: this.entry?.origin ?? null,
      digest: this.entry?.digest ?? null,
      effect: this.entry?.effect ?? null,
      status,
      error_code,
      duration_ms: Math.max(0, Math.round(this.deps.now() - this.#started)),
      args_preview: this.#preview!.text,
      result_bytes,
      detail,
    };
  }

  /**
   * The call's one final row and its result. `withheld`: a source's error answer the boundary rejected, journaled as
   * that error.
   */
  finish(envelope: Envelope, violation?: BoundaryViolation, withheld?: Refusal): Invoked {
    const printed = JSON.stringify(envelope);
    const facts = violation
      ? {
          rule: violation.rule,
          where: violation.where,
          ...(withheld ? { withheld: true } : {}),
          ...this.#offDetail,
          ...this.#recorded,
        }
      : { ...this.#offDetail, ...this.#recorded };
    const detail = Object.keys(facts).length > 0 ? JSON.stringify(facts) : null;
    const code = withheld?.code ?? (envelope.status === "success" ? null : envelope.error_code);
    this.deps.journal(this.row(envelope.status, code, Buffer.byteLength(printed), detail));
    if (!violation) return { envelope };
    return { envelope, violation, note: rejectionNote(this.name, this.entry!, violation, withheld) };
  }

  failed(r: Refusal): Invoked {
    const status = r.indeterminate ? "indeterminate" : "failed";
    const done = this.finish({
      status,
      tool: this.name,
      error_code: r.code,
      message: r.message,
      ...(r.details === undefined ? {} : { details: r.details }),
    });
    return r.operator === undefined ? done : { ...done, operator: r.operator };
  }

  /**
   * Ctrl-C while someone was asked (a permission or approval prompt) or before the run: whatever
   * the answer, nothing starts (not a source's server, not a task), and the call is cancelled.
   */
  interrupted(signal: AbortSignal | undefined): Invoked | undefined {
    const s = interruptedBy(signal);
    if (s === undefined) return undefined;
    this.record({ signal: s });
    return this.failed(interruptedBeforeStart(s, this.name));
  }

  /**
   * 8. Redact bound secrets, then the boundary, then classify. If redaction itself fails, every
   * view becomes a fixed failed result.
   */
  settle(ran: Outcome<unknown>): Invoked {
    const entry = this.entry!;
    let result: Outcome<unknown>;
    try {
      result = ran.ok
        ? { ok: true, value: redactValue(ran.value, this.secrets()) }
        : { ok: false, refusal: redactValue(ran.refusal, this.secrets()) as Refusal };
    } catch {
      return this.finish({ status: "failed", tool: this.name, error_code: "redaction_failed" });
    }
    // What the source produced: its result, or the raw answer behind a refusal (an isError result,
    // whose text is what the message was made from), else the refusal's own words.
    const r = result.ok ? undefined : result.refusal;
    const checkedValue =
      r === undefined
        ? (result as { value: unknown }).value
        : r.raw !== undefined
          ? r.raw
          : { message: r.message, details: r.details };
    const paths = entry.terms.boundary.localPaths;
    if (paths.rule === "lifted") this.#offDetail = { local_paths: "off", by: paths.by };
    const violation = checkBoundary(checkedValue, boundaryFor(entry));
    // A violation replaces the result whole, with the boundary's fixed object (no tool name, no partial).
    if (violation)
      return this.finish({ ...SENSITIVE_OUTPUT_REJECTED }, violation, r?.raw !== undefined ? r : undefined);
    return result.ok
      ? this.finish({ status: "success", tool: this.name, payload: result.value })
      : this.failed(result.refusal);
  }
}
