// What every caller of the pipeline hands `invoke` for one booted catalog: the call's scope, the
// launcher, the permission stage, the approval memory, the journal. Only the Runtime (runtime.ts,
// for `call`, a task's supervisor and serve) builds it, per call, so a served call and a shell
// call run with exactly the same wiring.
import type { Database } from "bun:sqlite";
import { resolve } from "node:path";
import type { ApprovalDeps } from "../approval/approval.ts";
import { escapeControl } from "../result/escape.ts";
import { userApprovals } from "../state/approvals.ts";
import { callJournal, selfMark } from "../state/journal.ts";
import { laneStore } from "../state/lanes.ts";
import { taskBoard } from "../state/task-board.ts";
import { recordResource } from "../state/resources.ts";
import { adoptChildState } from "../state/db.ts";
import { delegationSecrets } from "./providers/delegation.ts";
import { selfArgv } from "../launcher/detached.ts";
import type { LaunchWatch } from "../launcher/types.ts";
import type { Booted } from "./boot.ts";
import { boundaryFor, type InvokeDeps } from "./invoke.ts";
import type { CallScope } from "../catalog/declare.ts";
import { processRunner } from "./processes.ts";
import { ciScope } from "./ci.ts";
import { guardSelf } from "../launcher/guard.ts";
import { httpClient } from "../http/client.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";

export const DEADLINE_MS = 300_000;

export interface CallWiring {
  readonly booted: Booted;
  /** The parent environment: the launcher takes only what it passes on from it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The state database, opened by the caller before any call runs. */
  readonly db: () => Database;
  readonly lane: string;
  /** Names from --approve (or "all"). */
  readonly approved: ReadonlySet<string>;
  /** Who is asked when nothing else approves (the terminal, the client's elicitation), if anyone. */
  readonly ask: ApprovalDeps["ask"];
  readonly unattended?: boolean;
  readonly howToGrant?: (tool: string) => string;
  readonly profile?: InvokeDeps["profile"];
  /** What the serving process refuses now (serve: the shutdown, a supervised server down or restarting). */
  readonly refusedNow?: InvokeDeps["refusedNow"];
  /**
   * The names this caller can call, for the nearest to an unknown one (serve: the served names; default: the
   * catalog's).
   */
  readonly callable?: InvokeDeps["callable"];
  /** One line for the operator (stderr). */
  readonly operator: (line: string) => void;
  /** What to do when the started row cannot be written (the call then does not run): throw. */
  readonly unstarted: (e: unknown) => never;
  /** A finished row that cannot be written: the result still goes out; the caller tells the operator. */
  readonly unfinished: (e: unknown) => void;
  /** "session": the call came through a session; its row's detail says so (`via`). */
  readonly via?: string;
  /** The caller's --timeout, bounded by the tool's limit (runtime/timeout.ts): the call's scope.timeoutSecs. */
  readonly timeoutSecs?: number;
  /**
   * Launch hooks: a background task's live log and its tree's mark (src/tasks/supervise.ts), a terminal's status
   * line.
   */
  readonly watch?: LaunchWatch;
  /** Told what the call is doing now, in a few words (a terminal's status line). */
  readonly activity?: (text: string) => void;
  /**
   * Who answers an MCP server's elicitation/sampling during a call and sees its progress (the terminal, a served
   * client).
   */
  readonly peer?: CallScope["peer"];
  /** This process's telemetry, when the user's environment turns it on: each row becomes a span. */
  readonly telemetry?: Telemetry;
  /** The trace context a served client sent with the call (`params._meta`), continued instead of TRACEPARENT. */
  readonly trace?: { readonly traceparent?: unknown; readonly tracestate?: unknown };
  /** The background task this call runs as (its span says so). */
  readonly task?: string;
  /**
   * serve --http --oauth-issuer: who called (its token's subject and client, never the token); its row and span name
   * it.
   */
  readonly caller?: { readonly sub: string | null; readonly client_id: string | null };
}

/** The row as the journal gets it: `via` in its detail, and its served caller's names. */
function tagged<R extends { detail: string | null }>(row: R, w: Pick<CallWiring, "via" | "caller">): R {
  const r = withVia(row, w.via);
  return w.caller ? { ...r, caller_sub: w.caller.sub, caller_client: w.caller.client_id } : r;
}

/** The row's detail with `via` added (a forwarded call's row differs from a cold one only there). */
function withVia<R extends { detail: string | null }>(row: R, via: string | undefined): R {
  if (via === undefined) return row;
  let detail: unknown = {};
  try {
    detail = row.detail === null ? {} : JSON.parse(row.detail);
  } catch {
    detail = { text: row.detail };
  }
  return { ...row, detail: JSON.stringify({ via, ...(detail as object) }) };
}

/** What every call of one boot shares, built on its first call (serve makes a call's deps per request). */
interface Shared {
  readonly memory: ReturnType<typeof userApprovals>;
  readonly skillDirs: readonly string[];
  readonly http: NonNullable<CallScope["http"]>;
  readonly tokens: readonly string[];
  readonly self: readonly string[];
  readonly guard: { guard?: readonly string[] };
}
const sharedBy = new WeakMap<Booted, Shared>();
function sharedFor(booted: Booted): Shared {
  let s = sharedBy.get(booted);
  if (!s) {
    const skillDirs = ((booted.config.values.skills ?? []) as string[]).map((d) => resolve(booted.workspace, d));
    s = {
      memory: userApprovals(booted.userState, booted.workspace),
      skillDirs,
      http: httpClient(booted.net),
      tokens: railTokens(booted),
      self: selfArgv(),
      guard: guarded(),
    };
    sharedBy.set(booted, s);
  }
  return s;
}

/** The invoke dependencies for one call (each call gets its own journal row). */
export function callDeps(w: CallWiring, signal?: AbortSignal, stop?: AbortSignal): InvokeDeps {
  const { booted } = w;
  const { memory, skillDirs, http, tokens, self, guard } = sharedFor(booted);
  // The trace a call continues: a served client's `_meta`, else TRACEPARENT of the call's environment (a session's
  // client's).
  const trace = w.trace ?? { traceparent: w.env.TRACEPARENT, tracestate: w.env.TRACESTATE };
  const traced = w.telemetry?.call(
    {
      lane: w.lane,
      sandbox: booted.sandbox.mode,
      ...(w.task ? { task: w.task } : {}),
      ...(w.via ? { via: w.via } : {}),
    },
    trace,
  );
  const journal = callJournal(w.db, selfMark, traced?.tap);
  return {
    ...(signal ? { signal } : {}),
    ...(stop ? { stop } : {}),
    catalog: booted.catalog,
    refused: booted.refused,
    ...(w.refusedNow ? { refusedNow: w.refusedNow } : {}),
    unknown: (name) => booted.remote?.whyUnlisted(name),
    ...(w.callable ? { callable: w.callable } : {}),
    profile: w.profile,
    scope: {
      workspace: booted.workspace,
      stateDir: booted.stateDir,
      scratch: booted.config.values.scratch as string,
      lane: w.lane,
      ...(w.timeoutSecs === undefined ? {} : { timeoutSecs: w.timeoutSecs }),
      skillDirs,
      store: () => laneStore(w.db()),
      // A task's log tail passes the boundary with its tool's rules, as its result did.
      tasks: () => taskBoard(w.db(), { now: Date.now }, (tool) => boundaryFor(booted.catalog.entries.get(tool))),
      config: booted.config.values,
      controlFiles: booted.controlFiles,
      namedSecret: (abs) => booted.permissions.names("read", abs),
      operator: (line) => w.operator(escapeControl(line)),
      ...ciScope(w.env),
      ...(w.activity ? { activity: w.activity } : {}),
      http,
      rails: booted.rails,
      ...(booted.most ? { most: booted.most } : {}),
      ...(w.peer ? { peer: w.peer } : {}),
      ...(traced ? { trace: () => ({ traceparent: traced.traceparent(), tracestate: traced.tracestate() }) } : {}),
      // Kept with the call's journal row (written before the adapter ran).
      created: (tool, kind, id) =>
        recordResource(w.db(), {
          time_ms: Date.now(),
          tool,
          kind,
          resource_id: id,
          journal_id: journal.rowId() ?? null,
        }),
      delegation: {
        self,
        configData: booted.file?.data ?? null,
        readGrant: booted.grants.allow.read,
        denies: booted.grants.deny,
        callId: () => journal.rowId(),
        // delegation.env's values are the task call's secrets: the child's rows are filed redacted.
        // Each child row is a span under this call's (telemetry).
        adopt: (childState, parent) =>
          adoptChildState(
            w.db(),
            childState,
            parent ?? null,
            delegationSecrets(booted.config.values, w.env),
            traced?.tap,
          ),
      },
    },
    // The call's secrets (the rails' credentials, an authored tool's needs.env values) are masked in
    // the child's output as it is drained too (tails, artifacts, a task's live log), not only in
    // the result: a secret split across reads is still caught.
    processes: (s, masks) =>
      processRunner({
        parentEnv: w.env,
        stateDir: booted.stateDir,
        scratch: booted.config.values.scratch as string,
        sandboxMode: booted.sandbox.mode,
        sandbox: booted.sandbox.wrapper,
        secrets: {},
        masks,
        signal: s,
        ...(w.watch ? { watch: w.watch } : {}),
        ...guard,
      }),
    permissions: booted.permissions,
    approval: {
      approved: w.approved,
      overrides: booted.config.values.approval ?? {},
      // A served caller's "always" is its own (and it reads no one else's).
      isRemembered: (t, d) => memory.isRemembered(t, d, w.caller),
      remember: (t, d) =>
        void (
          memory.remember(t, d, Date.now(), w.caller) ||
          w.operator(
            "toolgate: the approval is not remembered: there is no user state folder outside the workspace " +
              "(set XDG_STATE_HOME, or HOME, to a folder outside it)",
          )
        ),
      ask: w.ask,
      ...(w.unattended ? { unattended: true } : {}),
      ...(w.howToGrant ? { howToGrant: w.howToGrant } : {}),
    },
    // The rails' credentials are redacted from every view of every call.
    secrets: tokens,
    // The write-ahead row: if it cannot be written, the call does not run.
    started: (row, facts) => {
      if (facts) traced?.approved(facts.approval);
      try {
        journal.started(tagged(row, w));
      } catch (e) {
        w.unstarted(e);
      }
    },
    // After the call, a row that cannot be finished must not hide the result: it stays "started"
    // (indeterminate in `toolgate log`), and the caller tells the operator.
    journal: (row) => {
      try {
        journal.finished(tagged(row, w));
      } catch (e) {
        w.unfinished(e);
      }
    },
    now,
    deadlineMs: DEADLINE_MS,
  };
}

/** Epoch milliseconds, fractional: the time origin read once (a getter each time is a cost per call). */
const origin = performance.timeOrigin;
const now = () => origin + performance.now();

const railTokens = (booted: Booted): string[] => Object.values(booted.rails).map((r) => r!.token);

/** --approve values, each possibly a comma list, as one set. */
export const approvedSet = (values: readonly string[]): Set<string> =>
  new Set(
    values.flatMap((v) =>
      v
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    ),
  );

/** An unsandboxed tool command runs under toolgate's guardian when this process is toolgate. */
const guarded = (): { guard?: readonly string[] } => {
  const self = guardSelf();
  return self ? { guard: self } : {};
};
