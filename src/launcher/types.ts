// The launcher's vocabulary: what a caller asks for (LaunchSpec), what it gets back (Execution or
// a typed LaunchRefusal), and the seams a caller injects (LauncherDeps). Types only.
import type { ChildEnv } from "./env.ts";
import type { Mount } from "./mount-list.ts";

export type StreamName = "stdout" | "stderr";

/** A sandbox wraps the program in a launcher of its own (e.g. bwrap); the modes come later. */
export interface Sandbox {
  /** Shown in failures ("product", "bench"). */
  readonly name: string;
  /**
   * Rewrites the argv about to be spawned, typically by prefixing the wrapper. It sees the final
   * cwd and environment but cannot change them; it runs once per launch, before the spawn.
   */
  wrap(argv: readonly string[], ctx: WrapContext): readonly string[];
  /**
   * Called once for every wrap, after the wrapped run (or server) ended and its tree is gone:
   * undoes what the wrap left on the host (the placeholders of missing control paths).
   */
  release?(): void;
  /**
   * When the wrapper itself could not exec the program, it exits with its own code and message.
   * Given the exit code and the stderr tail, say which errno that was ("ENOENT"), or null when
   * the program did run: the launcher then reports a spawn failure carrying that stderr.
   */
  startFailure?(code: number, stderr: string): string | null;
  /**
   * Given the wrapper's own failure (its stderr), whether it failed on something of the host that
   * changed between the wrap and the spawn (a socket it covered was removed): the launch then
   * wraps again, once.
   */
  vanished?(stderr: string): boolean;
  /**
   * Descriptors the wrapper reads (bwrap's seccomp program), opened for one spawn: the child gets
   * them as fd 3, 4, ... in this order (the wrapped argv names them); the launcher closes its own
   * copies once the child is spawned.
   */
  openFds?(): readonly number[];
  /** The mounts a run in `ctx` gets, in the order applied (mount-list.ts replays them); nothing is made. */
  plan?(ctx: WrapContext): readonly Mount[];
}

export interface WrapContext {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /**
   * When given, the workspace is read-only for this run and only these folders are writable (a
   * gate's disposable copy: a gate never writes the real checkout).
   */
  readonly writable?: readonly string[];
  /** The run's own HOME (a fresh folder in the state folder): writable inside the sandbox. */
  readonly home?: string;
}

export interface LaunchSpec {
  /** Program and arguments, never through a shell; a bare name is looked up on the child's PATH. */
  readonly argv: readonly string[];
  /** Built by childEnv(): the one way to give a child an environment. */
  readonly env: ChildEnv;
  readonly cwd: string;
  /** Written to the child's stdin, then closed; absent means /dev/null. */
  readonly stdin?: string | Uint8Array;
  /** Wall-clock limit in ms from the spawn; Infinity for none (a supervised server). */
  readonly deadlineMs: number;
  /** Aborting it cancels the run: the whole tree is ended and the result is `cancelled`. */
  readonly signal?: AbortSignal;
  /** TERM to KILL escalation delay in ms (default 2000). */
  readonly graceMs?: number;
  /** Folder for the full-stream artifacts (created 0700 when missing, at the first output). */
  readonly artifactsDir: string;
  readonly sandbox?: Sandbox;
  /** With a sandbox: the only writable folders (the workspace is then read-only). See WrapContext. */
  readonly sandboxWritable?: readonly string[];
  /** With a sandbox: the run's own HOME folder, kept writable there. See WrapContext. */
  readonly home?: string;
  /**
   * Without a sandbox: toolgate's own argv prefix (guard.ts guardSelf), to start the run under a
   * guardian that ends its whole tree if toolgate dies (kill -9 included).
   */
  readonly guard?: readonly string[];
  /** Told what happens while the run goes on (a background task's live log and its tree's mark). */
  readonly watch?: LaunchWatch;
}

/**
 * Hooks a caller may give a launch. They run synchronously on the launcher's path and must not
 * throw; a slow hook slows the drain (a task batches its writes: tasks/live-log.ts).
 */
export interface LaunchWatch {
  /**
   * Output as it is drained, already redacted (a secret split across reads is held back until it
   * can be masked, as for the tail); without bound secrets, the decoded text.
   */
  output?(stream: StreamName, text: string): void;
  /** The child was spawned: it leads its own session (sid = pid); `ended` once its tree is gone. */
  spawned?(pid: number): void;
  /**
   * A task's mark: set as TOOLGATE_TASK_MARK in the child's environment (orphan-session.ts checks it before
   * signalling).
   */
  readonly mark?: string;
  ended?(pid: number): void;
}

/** How the run ended. `timeout` and `cancelled` win over what the killed leader reported. */
export type Ending =
  | { readonly ended: "exited"; readonly code: number }
  | { readonly ended: "signalled"; readonly signal: string }
  | { readonly ended: "timeout" }
  | { readonly ended: "cancelled" };

export interface StreamReport {
  /** The last TAIL_CHARS characters (code points) of the stream, bound secrets redacted. */
  readonly tail: string;
  /** Bytes the child wrote. */
  readonly bytes: number;
  /** Characters (code points, invalid UTF-8 counting as U+FFFD) the child wrote. */
  readonly chars: number;
  /** The tail is not the whole (redacted) stream. */
  readonly truncated: boolean;
  /** Present when the artifact stopped at its cap (capture.ts ARTIFACT_CAP_BYTES) and says so. */
  readonly artifactCut?: true;
}

export type Execution = Ending & {
  readonly pid: number;
  readonly durationMs: number;
  readonly stdout: StreamReport;
  readonly stderr: StreamReport;
  /** Absolute paths of the full (redacted) streams, mode 0600; null for a stream with no output. */
  readonly artifacts: { readonly stdout: string | null; readonly stderr: string | null };
  /** Processes of the tree still running after the leader ended, which the launcher then ended. */
  readonly leftovers: number;
  /** Pids of the tree still alive when the launcher gave up waiting (a process stuck in the kernel). */
  readonly survivors: readonly number[];
  /** Something outside the tracked tree still held stdout/stderr open, so reading was abandoned. */
  readonly outputAbandoned: boolean;
  /** What was started, as an audit shows it (set by the process runner: runtime/processes.ts). */
  readonly audit?: RunAudit;
};

/** A run's audit view: never a variable's value. */
export interface RunAudit {
  /** The working folder the child started in. */
  readonly cwd: string;
  /** The names of the child's environment variables, sorted. */
  readonly envKeys: readonly string[];
  /** The real path of the program argv[0] started (a bare name looked up on the child's PATH); null when not found. */
  readonly program: string | null;
  /** The request's auditName resolved likewise (null when not found); absent when none was asked. */
  readonly named?: string | null;
}

export type LaunchRefusal =
  | { readonly code: "launch.invalid"; readonly message: string }
  | { readonly code: "launch.cancelled"; readonly message: string }
  | {
      readonly code: "launch.spawn_failed";
      readonly message: string;
      readonly details: { readonly errno: string; readonly program: string; readonly stderr?: string };
    }
  | {
      readonly code: "launch.artifact_error";
      readonly message: string;
      /** The run itself: the child was drained to its end and reaped all the same. */
      readonly details: { readonly stream: StreamName; readonly error: string; readonly execution: Execution };
    };

/** Assignable to Outcome<Execution> (result.ts): a refusal carries a stable code and how to fix it. */
export type LaunchOutcome =
  | { readonly ok: true; readonly value: Execution }
  | { readonly ok: false; readonly refusal: LaunchRefusal };

/** Where one stream's artifact goes. Both methods throw on failure; the launcher records the first. */
export interface ArtifactSink {
  readonly path: string;
  write(data: Uint8Array): void;
  close(): void;
}

/** The incremental secret redactor (boundary/redact.ts StreamRedactor has this shape). */
export interface Redactor {
  push(chunk: string): string;
  flush(): string;
}

export interface LauncherDeps {
  /**
   * Builds a redactor for the bound secret values. Injected because the boundary stage comes after
   * the launcher: the runtime passes `(s) => new StreamRedactor(s)`.
   */
  readonly redactor: (secrets: readonly string[]) => Redactor;
  /** Opens an artifact file exclusively with mode 0600 (tests inject failing sinks). */
  readonly openSink?: (path: string) => ArtifactSink;
  /** 128 bits of randomness as hex, for artifact names (default: crypto). */
  readonly randomId?: () => string;
  readonly now?: () => number;
  /** Wall-clock ms for artifact ages (default Date.now). */
  readonly wallClock?: () => number;
  /** Become a child subreaper for unsandboxed runs (default true; subreaper.ts). */
  readonly subreaper?: boolean;
}
