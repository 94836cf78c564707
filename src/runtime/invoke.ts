// The call pipeline, written once: resolve → validate →
// profile → permissions → approval → secrets → adapter under a deadline → boundary →
// classify → journal. Nothing reaches the adapter before steps 3-5 pass and its journal row
// is written (started); the same row is finished after.
import type { Catalog, Entry } from "../catalog/catalog.ts";
import type { CallScope, ProcessRunner, ToolContext } from "../catalog/declare.ts";
import { approve, approvedOutright, type ApprovalDeps } from "../approval/approval.ts";
import { dryRunReport, gateRefusal, MissingGrants } from "./missing-grants.ts";
import { checkBoundary, SENSITIVE_OUTPUT_REJECTED, type BoundaryOptions, type BoundaryViolation } from "../boundary/boundary.ts";
import { argsForApproval, previewArgs, redactValue } from "../boundary/redact.ts";
import type { Need } from "../permission/types.ts";
import type { Code } from "../result/codes.ts";
import type { Envelope, Outcome, Refusal } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import { explainWithArktype } from "../schema/explain.ts";
import { generatedValidator } from "../schema/builtin-checks.ts";
import { compileExternal } from "../schema/full.ts";
import { compileSchema, type Issue, type Validator } from "../schema/validate.ts";
import { withKeySuggestions } from "../schema/keys.ts";
import type { JournalRow } from "../state/journal.ts";
import { rejectionNote } from "./rejection-note.ts";
import { interruptedBeforeStart, interruptedBy, interruptedRefusal } from "./interrupted.ts";

export type GateResult = { ok: true; value?: string } | { ok: false; code: Code; message: string; flag?: string; deniedBy?: string };

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
  /** The names this caller can call, for the nearest to an unknown one (default: the catalog's; serve: what the client is served). */
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
  /** `masks`: the call's secret values, redacted from the child's output as it is drained (tails, artifacts, a task's live log). */
  readonly processes: (signal: AbortSignal, masks: readonly string[]) => ProcessRunner;
  readonly permissions: PermissionGate;
  readonly approval: ApprovalDeps;
  readonly profile?: Profile | undefined;
  readonly dryRun?: boolean; // stop after the permission stage with what the call needs (dryRunReport)
  /** Secret values bound to this call: redacted from every view. */
  readonly secrets: readonly string[];
  /** Writes the call's row as started, after steps 1-5 and before the adapter; throws when it cannot (the call does not run). */
  readonly started: (row: JournalRow, facts?: { readonly approval: string }) => void;
  /** The call's one row, final: finishes the started row, or is the whole row of a call refused before it started. */
  readonly journal: (row: JournalRow) => void;
  readonly now: () => number;
  readonly deadlineMs: number;
  /** Cancellation from outside (SIGINT/SIGTERM at the entry point, a served client's cancel): the adapter's run is aborted. */
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

/** What the foreground granted a call: the validated arguments, each need with the value it was granted as, the approval. */
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

const validators = new WeakMap<Entry, Validator>();
/**
 * Built-ins: the check generated from the schema arktype exported (else the fast check of it). Every other source (MCP, Las,
 * authored): the complete validator (draft 2020-12 / draft-07, `$ref`, formats), loaded on first
 * use of a schema past the fast check's subset. Only an authored tool gets defaults filled in.
 */
const validatorFor = (e: Entry): Validator => {
  let v = validators.get(e);
  if (!v) validators.set(e, (v = e.adapter.builtin ? (generatedValidator(e.inputSchema) ?? compileSchema(e.inputSchema)) : compileExternal(e.inputSchema, { fillDefaults: e.origin === "authored" })));
  return v;
};

/** What a source that times its own runs by --timeout (one with a time limit) gets past it, to answer with its own refusal. */
const OWN_TIMER_SLACK_MS = 2_000;

/**
 * The call's timer: the source's deadline (or the default), or the caller's --timeout when it is
 * shorter (scope.timeoutSecs, bounded by the tool's limit before the call), plus the slack for a
 * source that applies it to its own runs (bash, an authored tool, an MCP request: their adapters
 * declare a time limit). `statedMs` is the deadline a refusal names.
 */
function deadlineOf(entry: Entry | undefined, deps: InvokeDeps): { deadlineMs: number; statedMs: number } {
  const own = entry?.adapter.deadlineMs ?? deps.deadlineMs;
  const asked = deps.scope.timeoutSecs === undefined ? undefined : deps.scope.timeoutSecs * 1000;
  if (asked === undefined || asked >= own) return { deadlineMs: own, statedMs: own };
  return { deadlineMs: Math.min(own, asked + (entry?.adapter.timeLimit === undefined ? 0 : OWN_TIMER_SLACK_MS)), statedMs: asked };
}

const formatIssues = (issues: readonly Issue[]) =>
  issues.map((i) => `${i.path.length ? i.path.join(".") : "(arguments)"}: ${i.message}${i.did_you_mean === undefined ? "" : ` (did you mean ${JSON.stringify(i.did_you_mean)}?)`}`).join("; ");

export async function invoke(name: string, args: unknown, deps: InvokeDeps): Promise<Invoked> {
  const started = deps.now();
  const entry = deps.catalog.entries.get(name);
  // Read at each use: a source's list can grow during the call (an OAuth token read or refreshed).
  const secrets = () => (entry?.adapter.secrets?.length ? [...deps.secrets, ...entry.adapter.secrets] : deps.secrets);
  const { deadlineMs, statedMs } = deadlineOf(entry, deps);
  // The user's opt-out of the local-path rule for this source: every call's row says so.
  const pathsOff = entry?.adapter.localPathsOff;
  let offDetail = {}; // set once the result reaches the boundary with the rule off
  let recorded: Record<string, string> = {}; // what the adapter recorded (ctx.record), and the signal that interrupted it
  const record = (facts: Readonly<Record<string, string>>) => void (recorded = { ...recorded, ...facts });
  // The preview depends on the arguments and the secrets only: made once while the secrets stay the same list.
  let preview: { of: readonly string[]; length: number; text: string } | undefined;
  const previewed = () => {
    const s = secrets();
    if (preview?.of !== s || preview.length !== s.length) preview = { of: s, length: s.length, text: previewArgs(entry?.adapter.audit ? entry.adapter.audit(args) : args, 240, s) };
    return preview.text;
  };
  const row = (status: string, error_code: string | null, result_bytes: number, detail: string | null): JournalRow => ({
    time_ms: started,
    tool: name,
    origin: entry?.origin ?? null,
    digest: entry?.digest ?? null,
    effect: entry?.effect ?? null,
    status,
    error_code,
    duration_ms: Math.max(0, Math.round(deps.now() - started)),
    args_preview: previewed(),
    result_bytes,
    detail,
  });
  /** `withheld`: a source's error answer the boundary rejected, journaled as that error (its code). */
  const finish = (envelope: Envelope, violation?: BoundaryViolation, withheld?: Refusal): Invoked => {
    const printed = JSON.stringify(envelope);
    const facts = violation ? { rule: violation.rule, where: violation.where, ...(withheld ? { withheld: true } : {}), ...offDetail, ...recorded } : { ...offDetail, ...recorded };
    const detail = Object.keys(facts).length > 0 ? JSON.stringify(facts) : null;
    const code = withheld?.code ?? (envelope.status === "success" ? null : envelope.error_code);
    deps.journal(row(envelope.status, code, Buffer.byteLength(printed), detail));
    if (!violation) return { envelope };
    return { envelope, violation, note: rejectionNote(name, entry!, violation, withheld) };
  };
  const failed = (r: Refusal): Invoked => {
    const done = r.indeterminate
      ? finish({ status: "indeterminate", tool: name, error_code: r.code, message: r.message, ...(r.details === undefined ? {} : { details: r.details }) })
      : finish({ status: "failed", tool: name, error_code: r.code, message: r.message, ...(r.details === undefined ? {} : { details: r.details }) });
    return r.operator === undefined ? done : { ...done, operator: r.operator };
  };

  // 1. resolve from this boot's catalog (never a second lookup by name)
  if (!entry) return failed(deps.unknown?.(name) ?? unknownTool(name, deps.callable?.() ?? deps.catalog.entries.keys()));
  const pinned = deps.refused?.get(name) ?? deps.refusedNow?.(name);
  if (pinned) return failed(pinned);
  // 2. validate
  let validator: Validator;
  try {
    validator = validatorFor(entry);
  } catch (e) {
    return failed({ code: "schema.unsupported", message: `${name}'s input schema cannot be checked here (${(e as Error).message}); the tool is not called` });
  }
  const checked = validator(args);
  if (!checked.ok) {
    const explained = entry.adapter.arkInput ? await explainWithArktype(entry.adapter.arkInput, args, checked.issues) : checked.issues;
    const issues = withKeySuggestions(explained, entry.inputSchema, args);
    return failed({ code: "args.invalid", message: `invalid arguments for ${name}: ${formatIssues(issues)}`, details: { issues } });
  }
  const value = checked.value;
  // 3. profile
  const p = deps.profile;
  if (p && !p.offers(name, value)) {
    const which = p.offers(name) ? `this call of ${name} is not offered in profile "${p.name}" (it offers only some calls of ${name})` : `${name} is not offered in profile "${p.name}"`;
    return failed({ code: "profile.excluded", message: `${which}; a session with another profile can call it` });
  }
  // Ctrl-C while someone was asked (a permission or approval prompt) or before the run: whatever
  // the answer, nothing starts (not a source's server, not a task), and the call is cancelled.
  const interruptedNow = (): Invoked | undefined => {
    const s = interruptedBy(deps.signal);
    if (s === undefined) return undefined;
    record({ signal: s });
    return failed(interruptedBeforeStart(s, name));
  };
  // 4. permissions (pure checks such as "stays inside the workspace" come with the needs)
  const needs = entry.adapter.needs(value, deps.scope);
  if (!needs.ok) return failed(needs.refusal);
  // The handler works on what was checked here (its real paths), never on a second resolution of the names.
  const checkedNeeds: Need[] = [];
  const grants: Admitted["grants"][number][] = [];
  const missing = new MissingGrants();
  for (const need of needs.value) {
    const r = await (entry.adapter.checkNeed ? entry.adapter.checkNeed(need) : deps.permissions.check(need, name));
    if (!r.ok && missing.add(r, deps.approval.ask === undefined)) continue;
    if (!r.ok) return interruptedNow() ?? failed(gateRefusal(r));
    checkedNeeds.push(r.value === undefined ? need : { ...need, value: r.value });
    grants.push({ need, value: r.value });
  }
  const given = () => approvedOutright(entry, deps.approval) !== undefined || deps.approval.isRemembered(entry.name, entry.digest);
  if (deps.dryRun) return { envelope: { status: "success", tool: name, payload: dryRunReport(name, needs.value, missing, given()) } };
  if (missing.any) return interruptedNow() ?? failed(missing.refusal(given() ? undefined : `--approve=${name}`));
  // 5. approval
  // The prompt shows the whole arguments (made only when someone is asked), not the journal's preview.
  const approved = approvedOutright(entry, deps.approval) ?? (await approve(entry, () => argsForApproval(value, secrets()), deps.approval));
  if (!approved.ok) return interruptedNow() ?? failed(approved.refusal);
  const early = interruptedNow();
  if (early) return early;
  if (deps.admit) {
    const a = deps.admit({ entry, value, grants, approvedBy: approved.value, preview: previewArgs(entry.adapter.audit ? entry.adapter.audit(value) : value, 240, secrets()) });
    return "task" in a ? { envelope: { status: "success", tool: name, payload: { task_id: a.task, status: "queued" } }, task: a.task } : failed(a);
  }
  // Steps 3-5 passed: a source's own start (a server's, with its own row) may begin beside the call's row.
  const run = entry.adapter.begin?.() ?? ((a: unknown, c: ToolContext) => entry.adapter.run(a, c));
  // The write-ahead row, before the call's effect: a call killed from here on shows as indeterminate.
  deps.started(row("started", null, 0, null), { approval: approved.value });
  // 6. secrets: only what the config binds to this tool's source (built-ins are bound none).
  // 7. the adapter, under a deadline and cancellation
  // The call's cancellation, made when the adapter first looks at it (most never do) or the deadline passes.
  // Its listeners on the outer signals are removed once the adapter is done: `stop` is shared by
  // every call of a long-lived process, and would otherwise hold each call's controller for good.
  let controller: AbortController | undefined;
  // The removers of those listeners; undefined once the adapter is done (a late first look, or the
  // deadline's, gets a controller that listens to nothing).
  let detach: (() => void)[] | undefined = [];
  const cancellation = (): AbortController => {
    if (controller) return controller;
    const c = (controller = new AbortController());
    if (!detach) return c;
    for (const outer of [deps.signal, deps.stop]) {
      if (!outer) continue;
      if (outer.aborted) {
        c.abort();
        continue;
      }
      const onAbort = () => c.abort();
      outer.addEventListener("abort", onAbort, { once: true });
      detach.push(() => outer.removeEventListener("abort", onAbort));
    }
    return c;
  };
  // The process runner is made when the tool first asks for it (most tools run no process).
  let processes: ProcessRunner | undefined;
  const ctx: ToolContext = {
    ...deps.scope,
    checked: checkedNeeds,
    get processes() {
      return (processes ??= deps.processes(cancellation().signal, secrets()));
    },
    get signal() {
      return cancellation().signal;
    },
    now: deps.now,
    record,
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let ran: Outcome<unknown> | "deadline";
  try {
    ran = await new Promise<Outcome<unknown> | "deadline">((resolve, reject) => {
      timer = setTimeout(resolve, deadlineMs, "deadline");
      run(value, ctx).then(resolve, reject);
    });
  } finally {
    clearTimeout(timer);
    for (const off of detach) off();
    detach = undefined;
  }
  if (ran === "deadline") {
    cancellation().abort();
    // A tool outside this process may have acted: its effect is unknown, never a plain failure.
    const remote = !entry.adapter.builtin;
    const unknown = remote ? "; the effect is unknown and the call is not replayed" : "";
    // Still running after a signal cancelled it: the signal ended it (below), not the deadline.
    const after = interruptedBy(deps.signal) ? `${name} had not stopped when its time ran out${unknown}` : undefined;
    ran = { ok: false, refusal: { code: "deadline", message: after ?? `${name} did not finish within ${statedMs / 1000} s${unknown}`, ...(remote ? { indeterminate: true as const } : {}) } };
    if (after === undefined) return failed(ran.refusal);
  }
  // A signal interrupted the run: the result says so, with the signal, whatever the adapter answered
  // (its refusal's details, such as a command's tails, still pass the boundary below).
  const by = interruptedBy(deps.signal);
  if (by && !ran.ok) {
    record({ signal: by });
    ran = { ok: false, refusal: interruptedRefusal(by, ran.refusal) };
  }
  // 8. redact bound secrets, then the boundary, then classify. If redaction itself fails,
  // every view becomes a fixed failed result.
  let result: { ok: true; value: unknown } | { ok: false; refusal: Refusal };
  try {
    result = ran.ok ? { ok: true, value: redactValue(ran.value, secrets()) } : { ok: false, refusal: redactValue(ran.refusal, secrets()) as Refusal };
  } catch {
    return finish({ status: "failed", tool: name, error_code: "redaction_failed" });
  }
  // What the source produced: its result, or the raw answer behind a refusal (an isError result,
  // whose text is what the message was made from), else the refusal's own words.
  const r = result.ok ? undefined : result.refusal;
  const checkedValue = r === undefined ? (result as { value: unknown }).value : r.raw !== undefined ? r.raw : { message: r.message, details: r.details };
  if (pathsOff !== undefined) offDetail = { local_paths: "off", by: pathsOff };
  const violation = checkBoundary(checkedValue, boundaryFor(entry));
  // A violation replaces the result whole, with the boundary's fixed object (no tool name, no partial).
  if (violation) return finish({ ...SENSITIVE_OUTPUT_REJECTED }, violation, r?.raw !== undefined ? r : undefined);
  return result.ok ? finish({ status: "success", tool: name, payload: result.value }) : failed(result.refusal);
}

/** unknown_tool, naming the nearest callable name when one is close (suggested, never called). */
function unknownTool(name: string, callable: Iterable<string>): Refusal {
  const near = nearest(name, callable);
  const message = `no tool named "${name}" in this catalog; \`toolgate tools\` lists them${didYouMean(near)}`;
  return near === undefined ? { code: "unknown_tool", message } : { code: "unknown_tool", message, details: { did_you_mean: near } };
}

/**
 * The boundary's rules for what a tool produces (its result, a task's log of it): the local-path
 * rule unless a built-in speaks for itself or the user lifted it; a relayed read's MCP Apps held
 * to the transport's bound.
 */
export const boundaryFor = (entry: Entry | undefined): BoundaryOptions => ({
  localPaths: entry === undefined || ((!entry.adapter.builtin || entry.adapter.foreignOutput === true) && entry.adapter.localPathsOff === undefined),
  ...(entry?.adapter.apps === true ? { apps: true } : {}),
});
