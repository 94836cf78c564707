// The Runtime: one boot's config, catalog (every provider's tools), permissions, sandbox,
// servers, state and telemetry, opened once and closed once. Every entry point calls tools
// through it: `call` (and a session's forwarded calls, which run `call`), a background task's
// supervisor, and serve (every tools/call and relayed request, through src/serve/tool-caller.ts).
import type { Database } from "bun:sqlite";
import type { ApprovalDeps } from "../approval/approval.ts";
import type { Entry } from "../catalog/catalog.ts";
import type { Effective } from "../config/resolve.ts";
import { SANDBOX_HINT, sandboxProblem } from "../launcher/sandbox.ts";
import { guardSelf, warmGuard } from "../launcher/guard.ts";
import { isOrigin } from "../catalog/origin.ts";
import { bootError, type Refusal } from "../result/result.ts";
import type { Telemetry } from "../telemetry/telemetry.ts";
import { admitTask } from "./background.ts";
import { boot, type BootInput, type Booted } from "./boot.ts";
import { callDeps, type CallWiring } from "./call-deps.ts";
import type { Invoked, PermissionGate } from "./call-types.ts";
import { invoke } from "./invoke.ts";

/** Who calls, and how: one call's lane, approvals, who is asked, the operator's lines, the hooks that watch it. */
export type Caller = Omit<CallWiring, "booted" | "env" | "db" | "telemetry"> & {
  /** Cancellation from outside (SIGINT/SIGTERM, a client's cancel); `stop`: one shared by every call of a process. */
  readonly signal?: AbortSignal;
  readonly stop?: AbortSignal;
  /** Stop after the permission stage with what the call needs: nothing is asked, run or journaled. */
  readonly dryRun?: boolean;
  /** `call --background`: the call becomes a task once its stages pass, under this write scope. */
  readonly background?: { readonly writeScope: string | null };
  /** Narrows the permission stage (a task's supervisor answers only what its foreground admitted). */
  readonly permissions?: (gate: PermissionGate) => PermissionGate;
  /** Widens the approval memory for this caller (a served client's approvals for its session). */
  readonly approval?: (approval: ApprovalDeps) => ApprovalDeps;
  /**
   * A tool outside the catalog, called as the only one there is (serve's relayed resource reads: no profile, no
   * lock).
   */
  readonly entry?: Entry;
};

export interface Runtime {
  readonly booted: Booted;
  /** The telemetry this runtime's calls record into, when the environment turns it on. */
  readonly telemetry: Telemetry | undefined;
  /**
   * Before the first call of `tool`: the sandbox probed when it will be used, the guardian warmed, the state opened.
   */
  ready(
    tool: string,
    opts?: { readonly verbose?: (line: string) => void; readonly background?: boolean },
  ): Promise<void>;
  call(name: string, args: unknown, caller: Caller): Promise<Invoked>;
  /** The state database, opened now when no call opened it yet (serve opens it at its start). */
  state(): Database;
  /**
   * From now on every call is refused with `refusal` (journaled like any refusal); the calls in
   * flight get `graceMs` to finish, then are cancelled and awaited (serve's shutdown).
   */
  drain(graceMs: number, refusal: Refusal): Promise<void>;
  /**
   * The servers shut down (`handOff`: by a detached reaper, off the caller's path), the state closed, the spans
   * handed on.
   */
  close(opts?: { readonly handOff?: boolean }): Promise<void>;
}

export interface RuntimeInput extends BootInput {
  /**
   * How the state is checked (before anything starts) and opened (before the first call); `kept`: its owner closes
   * it.
   */
  readonly state: {
    readonly check?: (config: Effective) => void;
    readonly open: (config: Effective) => Database;
    readonly kept?: boolean;
  };
  /** The telemetry to record into: a session's (kept), or made here once booted and finished at close. */
  readonly telemetry: Telemetry | undefined | ((booted: Booted) => Telemetry | undefined);
  /** With `call`: a guardian the call will need starts as soon as the config allows (not for a background call). */
  readonly warm?: boolean;
  /** Runs once the boot passed, before the telemetry is made (`call --profile` looks its profile up here). */
  readonly afterBoot?: (booted: Booted) => void | Promise<void>;
}

export async function openRuntime(input: RuntimeInput): Promise<Runtime> {
  let db: Database | undefined;
  const beforeStart = (config: Effective) => {
    input.state.check?.(config);
    // Sandbox off and bash or a gate: the command's guardian starts as soon as the config says so.
    if (input.warm && input.call !== undefined && config.values.sandbox === "off" && SANDBOXED_BUILTINS.has(input.call))
      warmSelf();
  };
  // A server started for a call journals its start in the state once that is open.
  const booted = await boot({ ...input, beforeStart, ...("stateDb" in input ? {} : { stateDb: () => db }) });
  await input.afterBoot?.(booted);
  const own = typeof input.telemetry === "function";
  const telemetry = typeof input.telemetry === "function" ? input.telemetry(booted) : input.telemetry;
  const inflight = new Set<Promise<Invoked>>();
  // Set by drain: each later call is refused with it. `halt`: aborted once the drain's grace is over.
  let closing: Refusal | undefined;
  const halt = new AbortController();
  const state = () => db!;
  const traced = telemetry ? { telemetry } : {};
  const run = (name: string, args: unknown, caller: Caller): Promise<Invoked> => {
    db ??= input.state.open(booted.config);
    const { signal, stop, dryRun, background, permissions, approval, entry } = caller;
    // The refusal is looked at before the call's first await, so deciding it here is deciding it then.
    const shut = closing;
    // The caller's own fields (signal, entry, …) ride along unread: callDeps reads CallWiring's.
    const w: CallWiring = {
      ...caller,
      booted,
      env: input.env,
      db: state,
      ...traced,
      ...(shut ? { refusedNow: () => shut } : {}),
    };
    const deps = callDeps(w, signal, stop ? AbortSignal.any([stop, halt.signal]) : halt.signal);
    if (!(background || dryRun || permissions || approval || entry)) return invoke(name, args, deps);
    // --background: the same stages here (a denial starts nothing), then a task.
    const admit = background
      ? {
          admit: admitTask({
            db: state,
            booted,
            input,
            lane: w.lane,
            writeScope: background.writeScope,
            env: input.env,
            ...(w.timeoutSecs === undefined ? {} : { timeoutSecs: w.timeoutSecs }),
          }),
        }
      : {};
    const silent = dryRun ? { dryRun: true, journal: () => {}, started: () => {} } : {};
    const gate = permissions ? { permissions: permissions(deps.permissions) } : {};
    const remembered = approval ? { approval: approval(deps.approval) } : {};
    const own = entry
      ? { catalog: { descriptors: [entry], entries: new Map([[name, entry]]) }, profile: undefined, refused: undefined }
      : {};
    return invoke(name, args, { ...deps, ...admit, ...silent, ...gate, ...remembered, ...own });
  };
  const runtime: Runtime = {
    booted,
    telemetry,
    async ready(tool, opts = {}) {
      await checkSandbox(booted, tool, opts.verbose);
      if (!opts.background) warmGuardFor(booted, tool);
      db ??= input.state.open(booted.config);
    },
    call(name, args, caller) {
      try {
        const done = run(name, args, caller);
        inflight.add(done);
        const settled = () => void inflight.delete(done);
        done.then(settled, settled);
        return done;
      } catch (e) {
        return Promise.reject(e);
      }
    },
    state: () => (db ??= input.state.open(booted.config)),
    async drain(graceMs, refusal) {
      closing = refusal;
      const all = () => Promise.allSettled([...inflight]);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = await Promise.race([
        all().then(() => false),
        new Promise<boolean>((res) => (timer = setTimeout(() => res(true), graceMs))),
      ]);
      clearTimeout(timer);
      if (late) {
        halt.abort();
        await all();
      }
    },
    async close(opts = {}) {
      // The result is out (and journaled): a cold call's children are shut down by a detached reaper.
      await booted.remote?.shutdown(opts.handOff === undefined ? undefined : { handOff: opts.handOff });
      // Closing the last connection checkpoints the WAL and syncs it, which the result need not wait for.
      if (!input.state.kept) db?.close();
      if (own) await telemetry?.finish();
    },
  };
  return runtime;
}

/** Built-ins that start sandboxed processes; tools from other sources may too. */
const SANDBOXED_BUILTINS = new Set(["bash", "dev_check"]);

/**
 * Sandbox off, a tool that runs a command: its guardian (launcher/guard.ts) starts now, so that its
 * start overlaps the rest of the call (journal, permissions, approval) instead of delaying the command.
 */
function warmGuardFor(booted: Booted, tool: string): void {
  const entry = booted.catalog.entries.get(tool);
  if (
    booted.sandbox.wrapper ||
    !entry ||
    !(SANDBOXED_BUILTINS.has(tool) || tool === "task" || isOrigin(entry.origin, "authored"))
  )
    return;
  warmSelf();
}

const warmSelf = () => {
  const self = guardSelf();
  if (self) warmGuard(self);
};

/**
 * States the sandbox mode (`verbose`) and, when the call may use it, probes it: bwrap takes tens of
 * ms to start, so calls that never sandbox skip that. A mode that cannot be had fails the boot.
 */
async function checkSandbox(
  booted: Booted,
  tool: string,
  verbose: ((line: string) => void) | undefined,
): Promise<void> {
  const sandbox = booted.sandbox;
  verbose?.(`sandbox: ${sandbox.summary}`);
  const entry = booted.catalog.entries.get(tool);
  if (!sandbox.wrapper || !entry || (entry.terms.acts === "here" && !SANDBOXED_BUILTINS.has(tool))) return;
  const problem = await sandboxProblem(sandbox, booted.workspace);
  if (problem === null) return;
  await booted.remote?.shutdown();
  throw bootError(problem, SANDBOX_HINT);
}
