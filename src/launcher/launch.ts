// A run: checks the spec, applies the sandbox hook (or the guardian's argv), spawns the child in a
// new session and process group (so the whole tree can be signalled) and hands it to supervise().
// Every child of toolgate's, a run or not, is started by spawn.ts.
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { closeQuietly } from "../fs/opened.ts";
import { fileSink, openArtifact, pruneArtifacts, randomHex } from "./artifacts.ts";
import { guardedArgv, guardStartFailure, startWarm, takeWarmGuard } from "./guard.ts";
import { TASK_MARK_VAR } from "./orphan-session.ts";
import { becomeSubreaper, ownChildren } from "./subreaper.ts";
import { spawnChild } from "./spawn.ts";
import { supervise } from "./supervise.ts";
import type { LaunchOutcome, LaunchRefusal, LaunchSpec, LauncherDeps } from "./types.ts";

export const DEFAULT_GRACE_MS = 2_000;
/** setTimeout's ceiling; a longer deadline is refused rather than silently firing at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface Launcher {
  launch(spec: LaunchSpec): Promise<LaunchOutcome>;
}

export function createLauncher(deps: LauncherDeps): Launcher {
  return { launch: (spec) => launch(spec, deps) };
}

export async function launch(spec: LaunchSpec, deps: LauncherDeps): Promise<LaunchOutcome> {
  const now = deps.now ?? (() => performance.now());
  const invalid = checkSpec(spec);
  if (invalid) return fail({ code: "launch.invalid", message: invalid });
  if (spec.signal?.aborted)
    return fail({ code: "launch.cancelled", message: "the call was cancelled before the process started" });

  const env = spec.env.vars;
  const sandbox = spec.sandbox;
  const ctx = {
    cwd: spec.cwd,
    env,
    ...(spec.sandboxWritable ? { writable: spec.sandboxWritable } : {}),
    ...(spec.home ? { home: spec.home } : {}),
  };
  for (let attempt = 1; ; attempt++) {
    const argv = sandbox
      ? [...sandbox.wrap(spec.argv, ctx)]
      : spec.guard
        ? guardedArgv(spec.guard, spec.argv)
        : [...spec.argv];
    let outcome: LaunchOutcome;
    try {
      outcome = await launchWrapped(spec, deps, argv, now);
    } finally {
      sandbox?.release?.();
    }
    // A host socket the wrap covered went away before bwrap could mount over it: wrap again, once.
    const raced =
      attempt === 1 &&
      !outcome.ok &&
      outcome.refusal.code === "launch.spawn_failed" &&
      sandbox?.vanished?.(outcome.refusal.details.stderr ?? "");
    if (!raced) return outcome;
  }
}

async function launchWrapped(
  spec: LaunchSpec,
  deps: LauncherDeps,
  argv: string[],
  now: () => number,
): Promise<LaunchOutcome> {
  const env = spec.env.vars;
  if (argv.length === 0 || argv.some((a) => typeof a !== "string" || a.includes("\0"))) {
    return fail({
      code: "launch.invalid",
      message: "the sandbox produced an empty argv or an argument with a NUL character",
    });
  }

  // Unsandboxed, nothing but toolgate can catch an orphan (sandboxed: the PID namespace ends it).
  if (!spec.sandbox && deps.subreaper !== false) await becomeSubreaper();
  const startedAt = now();
  let proc: Bun.Subprocess<"ignore" | "pipe" | Uint8Array, "pipe", "pipe">;
  let fds: readonly number[] = [];
  try {
    fds = spec.sandbox?.openFds?.() ?? [];
    const stdin =
      spec.stdin === undefined
        ? undefined
        : typeof spec.stdin === "string"
          ? new TextEncoder().encode(spec.stdin)
          : spec.stdin;
    // A task's children carry its mark: only a process that has it is ever ended from its row.
    const childEnv = spec.watch?.mark ? { ...env, [TASK_MARK_VAR]: spec.watch.mark } : { ...env };
    // A guardian started ahead (guard.ts warmGuard) is told the command now; else one starts here.
    const warm = !spec.sandbox && spec.guard ? takeWarmGuard() : undefined;
    if (warm) {
      startWarm(warm, { argv: spec.argv, env: childEnv, cwd: spec.cwd }, stdin);
      proc = warm.proc;
    } else {
      proc = spawnChild({
        argv,
        cwd: spec.cwd,
        env: childEnv,
        // The wrapper's own descriptors follow stdin, stdout and stderr (fd 3, 4, ...).
        stdio: [stdin ?? "ignore", "pipe", "pipe", ...fds],
        // setsid(2): the child leads a new session and process group, so TERM/KILL reach its tree.
        session: "new",
      });
    }
  } catch (e) {
    return fail(spawnFailure(e, argv[0]!, spec.cwd, env.PATH ?? ""));
  } finally {
    fds.forEach(closeQuietly);
  }

  ownChildren.add(proc.pid);
  spec.watch?.spawned?.(proc.pid);
  const id = (deps.randomId ?? randomHex)();
  const open = deps.openSink ?? fileSink;
  const secrets = spec.env.secrets;
  let outcome: LaunchOutcome;
  try {
    outcome = await supervise({
      proc,
      artifact: (stream) => () => openArtifact(spec.artifactsDir, `${id}.${stream}.log`, open),
      redactor: () => (secrets.length > 0 ? deps.redactor(secrets) : null),
      deadlineMs: spec.deadlineMs,
      graceMs: spec.graceMs ?? DEFAULT_GRACE_MS,
      signal: spec.signal,
      startedAt,
      now,
      ...(spec.watch?.output ? { output: spec.watch.output } : {}),
    });
  } catch (e) {
    ownChildren.delete(proc.pid);
    spec.watch?.ended?.(proc.pid);
    // A bug, not a result: still leave nothing of the run's group behind.
    try {
      process.kill(-proc.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
    throw e;
  }
  ownChildren.delete(proc.pid);
  spec.watch?.ended?.(proc.pid);
  pruneOnce(spec.artifactsDir, outcome, deps);
  return wrapperFailure(outcome, spec) ?? outcome;
}

/** Folders pruned by this process: once each is enough for a call (and cheap for a server). */
const pruned = new Set<string>();

/** After a run that wrote an artifact: old and excess artifacts go (artifacts.ts pruneArtifacts). */
function pruneOnce(dir: string, outcome: LaunchOutcome, deps: LauncherDeps): void {
  const e = outcome.ok
    ? outcome.value
    : outcome.refusal.code === "launch.artifact_error"
      ? outcome.refusal.details.execution
      : null;
  const own = e ? [e.artifacts.stdout, e.artifacts.stderr].filter((p): p is string => p !== null) : [];
  if (own.length === 0 || pruned.has(dir)) return;
  pruned.add(dir);
  pruneArtifacts(dir, own, (deps.wallClock ?? Date.now)());
}

/** A run whose sandbox wrapper (or guardian) says the program never started is a spawn failure, with its stderr. */
function wrapperFailure(outcome: LaunchOutcome, spec: LaunchSpec): LaunchOutcome | null {
  if (!spec.sandbox && spec.guard && outcome.ok && outcome.value.ended === "exited") {
    const errno = guardStartFailure(outcome.value.code, outcome.value.stderr.tail);
    const path = spec.env.vars.PATH ?? "";
    return errno === null
      ? null
      : fail(spawnFailure(Object.assign(new Error(errno), { code: errno }), spec.argv[0]!, spec.cwd, path));
  }
  const judge = spec.sandbox?.startFailure;
  if (!judge || !outcome.ok || outcome.value.ended !== "exited") return null;
  const { code, stderr } = outcome.value;
  const errno = judge.call(spec.sandbox, code, stderr.tail);
  if (errno === null) return null;
  const program = spec.argv[0]!;
  return fail({
    code: "launch.spawn_failed",
    // The wrapper's own one line says why (a namespace it could not make, a mount that failed).
    message:
      `cannot start "${program}" inside the ${spec.sandbox!.name} sandbox (${errno}): ` +
      `${stderr.tail.trim().slice(0, 300)}`,
    details: { errno, program, stderr: stderr.tail },
  });
}

const fail = (refusal: LaunchRefusal): LaunchOutcome => ({ ok: false, refusal });

function checkSpec(spec: LaunchSpec): string | null {
  if (!Array.isArray(spec.argv) || spec.argv.length === 0) return "argv is empty: give the program and its arguments";
  if (spec.argv.some((a) => typeof a !== "string" || a.includes("\0")))
    return "every argv element must be a string without NUL characters";
  if (spec.argv[0] === "") return "the program name is empty";
  if (!isAbsolute(spec.cwd) || spec.cwd.includes("\0"))
    return `the working folder must be an absolute path (got "${spec.cwd}")`;
  if (!isAbsolute(spec.artifactsDir))
    return `the artifacts folder must be an absolute path (got "${spec.artifactsDir}")`;
  const d = spec.deadlineMs;
  if (!(d > 0) || (Number.isFinite(d) ? d > MAX_TIMER_MS : d !== Infinity))
    return `deadlineMs must be a positive number of ms up to ${MAX_TIMER_MS}, or Infinity (got ${d})`;
  const g = spec.graceMs;
  if (g !== undefined && !(g >= 0 && g <= MAX_TIMER_MS))
    return `graceMs must be between 0 and ${MAX_TIMER_MS} (got ${g})`;
  return null;
}

/** Bun reports a missing working folder as ENOENT on the program: say which one it was. */
function spawnFailure(e: unknown, program: string, cwd: string, path: string): LaunchRefusal {
  const errno = typeof (e as { code?: unknown })?.code === "string" ? (e as { code: string }).code : "EUNKNOWN";
  const cwdProblem = folderProblem(cwd);
  let message: string;
  if (cwdProblem) message = `cannot start "${program}": the working folder ${cwd} ${cwdProblem}`;
  else if (errno === "ENOENT") {
    message = program.includes("/")
      ? `cannot start "${program}": no such file (or its interpreter is missing)`
      : `cannot start "${program}": not found on the child's PATH (${path}); give an absolute path or install it there`;
  } else if (errno === "EACCES")
    message = `cannot start "${program}": permission denied (not executable, or a folder on its path is not searchable)`;
  else message = `cannot start "${program}": ${e instanceof Error ? e.message : String(e)}`;
  return { code: "launch.spawn_failed", message, details: { errno, program } };
}

function folderProblem(cwd: string): string | null {
  try {
    return statSync(cwd).isDirectory() ? null : "is not a folder";
  } catch {
    return "does not exist";
  }
}
