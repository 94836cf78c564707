// The process runner handed to handlers: one launcher, the scrubbed environment built from the
// parent environment given at the entry point, bound secrets redacted from tails and artifacts,
// artifacts under the state folder, and the boot's sandbox for calls that ask for it.
import { mkdirSync } from "node:fs";
import { join, relative } from "node:path";
import type { ProcessRequest, ProcessRunner, SandboxMode } from "../catalog/declare.ts";
import { StreamRedactor } from "../boundary/redact.ts";
import { childEnv } from "../launcher/env.ts";
import { createLauncher } from "../launcher/launch.ts";
import { makeRunHome, releaseRunHome } from "../launcher/run-home.ts";
import type { Execution, LaunchWatch, RunAudit, Sandbox } from "../launcher/types.ts";
import { TASK_MARK_VAR } from "../launcher/orphan-session.ts";
import { resolveReal, which } from "../fs/real-path.ts";
import { refuse, type Outcome } from "../result/result.ts";

export interface ProcessRunnerDeps {
  readonly parentEnv: Readonly<Record<string, string | undefined>>;
  readonly stateDir: string;
  /** The scratch folder: made before a tool's command runs when it lies in the state folder (as the sandbox does). */
  readonly scratch?: string;
  readonly sandboxMode: SandboxMode;
  /** The wrapper for `product`/`bench` (undefined for `off`). */
  readonly sandbox: Sandbox | undefined;
  /** Secret bindings the config grants this tool (name → value); values are never logged. */
  readonly secrets: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
  /**
   * Values to redact from the child's output though not bound to it (the call's own secrets, e.g. the rails'
   * credentials).
   */
  readonly masks?: readonly string[];
  /** A background task's hooks (its live log, its tree's mark); absent for a foreground call. */
  readonly watch?: LaunchWatch;
  /** toolgate's own argv prefix: an unsandboxed tool command runs under its guardian (launcher/guard.ts). */
  readonly guard?: readonly string[];
}

/** A task's hooks and a request's own output hook, both told. */
function watchWith(watch: LaunchWatch | undefined, output: ProcessRequest["output"]): LaunchWatch {
  if (!output) return watch!;
  const theirs = watch?.output;
  return { ...watch, output: theirs ? (s, t) => (theirs(s, t), output(s, t)) : output };
}

export function processRunner(deps: ProcessRunnerDeps): ProcessRunner {
  const launcher = createLauncher({ redactor: (s) => new StreamRedactor(s) });
  const launch = (req: ProcessRequest, home: string | undefined): Promise<Outcome<Execution>> => {
    const env = childEnv({
      parent: deps.parentEnv,
      allow: [...(req.allowEnv ?? []), ...(req.secretEnv ?? [])],
      groups: [...(req.envGroups ?? [])],
      values: { ...(req.values ?? {}), ...(home ? { HOME: home } : {}) },
      secrets: { ...deps.secrets },
      masks: [...(deps.masks ?? []), ...(req.secretEnv ?? []).flatMap((n) => deps.parentEnv[n] ?? [])],
    });
    if (!env.ok) return Promise.resolve(env);
    const sandboxed = req.sandboxed && deps.sandbox;
    // The tool's own command (not toolgate's helpers: git, ls) dies with toolgate, even by kill -9.
    const guard = req.sandboxed && !deps.sandbox ? deps.guard : undefined;
    const audit = auditOf(req, env.value.vars, deps.watch?.mark !== undefined);
    return launcher
      .launch({
        argv: req.argv,
        env: env.value,
        cwd: req.cwd,
        ...(req.stdin === undefined ? {} : { stdin: req.stdin }),
        deadlineMs: req.deadlineMs,
        signal: deps.signal,
        ...(deps.watch || req.output ? { watch: watchWith(deps.watch, req.output) } : {}),
        artifactsDir: join(deps.stateDir, "artifacts"),
        ...(sandboxed
          ? {
              sandbox: deps.sandbox,
              ...(req.writable ? { sandboxWritable: req.writable } : {}),
              ...(home ? { home } : {}),
            }
          : {}),
        ...(guard ? { guard } : {}),
      })
      .then((r) => (r.ok ? { ok: true as const, value: { ...r.value, audit } } : r));
  };
  return {
    sandboxMode: deps.sandboxMode,
    async run(req) {
      if (req.sandboxed && deps.scratch !== undefined) makeScratch(deps.stateDir, deps.scratch);
      // An empty HOME of the run's own (bash -lc): emptied once the run and its tree are over.
      const home = req.home ? makeRunHome(deps.stateDir) : null;
      if (home && !home.ok) return refuse("launch.home", `${home.message}; the command did not run`);
      try {
        return await launch(req, home?.path);
      } finally {
        if (home) releaseRunHome(home.path);
      }
    },
  };
}

/**
 * The working folder, the environment's names (the task mark the launcher adds among them), the program's real path
 * and the auditName's.
 */
function auditOf(req: ProcessRequest, vars: Readonly<Record<string, string>>, marked: boolean): RunAudit {
  const resolved = (name: string) =>
    name.includes("/") ? resolveReal(name, req.cwd) : which(name, vars.PATH ?? "", req.cwd);
  const envKeys = [...Object.keys(vars), ...(marked ? [TASK_MARK_VAR] : [])].sort();
  return {
    cwd: req.cwd,
    envKeys,
    program: resolved(req.argv[0] ?? ""),
    ...(req.auditName === undefined ? {} : { named: resolved(req.auditName) }),
  };
}

/**
 * The scratch folder, where a command leaves what scratch_read reads: made 0700 when missing and it
 * lies inside the state folder, which the call's journal row has made already; in every sandbox
 * mode, as bwrap's writable folders are made under `product` and `bench`. Never the folder above it.
 */
function makeScratch(stateDir: string, scratch: string): void {
  const rel = relative(stateDir, scratch);
  if (rel === "" || rel.startsWith("..") || rel.startsWith("/")) return;
  try {
    mkdirSync(scratch, { mode: 0o700 });
  } catch {
    // There already, or no state folder above it: scratch_read says scratch.missing.
  }
}
