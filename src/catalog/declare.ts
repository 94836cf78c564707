// The declaration API: one file per built-in tool exports `defineTool({...})`.
// `input` is an arktype type behind a thunk, so the hot path never loads arktype:
// the build exports each input to JSON Schema (src/generated/schemas.json) and the
// runtime validates against that, loading arktype only to explain a failure.
import type { Type, type as arkType } from "arktype";
import type { Need } from "../permission/types.ts";
import type { Execution } from "../launcher/types.ts";
import type { Code } from "../result/codes.ts";
import type { Outcome } from "../result/result.ts";
import type { Peer } from "../mcp/peer.ts";
import type { ConfigData } from "../config/schema.ts";

export const EFFECTS = ["read", "idempotent-write", "reversible", "irreversible"] as const;
export type EffectClass = (typeof EFFECTS)[number];
export type ApprovalPolicy = "required" | "never";

export const STEP_STATUSES = ["pending", "in_progress", "done", "dropped"] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];
export interface PlanStep {
  readonly title: string;
  readonly status: StepStatus;
}
export interface PlanRecord {
  readonly lane: string;
  readonly version: number;
  readonly steps: readonly PlanStep[];
  readonly updated_ms: number;
}
export interface DeskRecord {
  readonly lane: string;
  readonly version: number;
  readonly text: string;
  readonly updated_ms: number;
}

/** Durable per-lane records (plans, desk pages) in the state database, handed to handlers. */
export interface LaneStore {
  readPlan(lane: string): PlanRecord | null;
  /** Idempotent: the same steps as the current plan create no new version. */
  writePlan(lane: string, steps: readonly PlanStep[], now: number): PlanRecord & { readonly changed: boolean };
  readDesk(lane: string): DeskRecord | null;
  /** Replaces the page whole; with `expectedVersion`, refuses (null) when someone else wrote in between. */
  writeDesk(
    lane: string,
    text: string,
    expectedVersion: number | undefined,
    now: number,
  ): { ok: true; record: DeskRecord } | { ok: false; current: DeskRecord | null };
}

/** A background task as a model sees it: no owner, write scope, metadata or raw log. */
export interface ModelTask {
  readonly task_id: string;
  readonly kind: string;
  readonly tool: string;
  readonly status: string;
  readonly summary: string | null;
  readonly created_ms: number;
  readonly ended_ms: number | null;
}

/** This lane's background tasks for the model-facing tools (src/state/task-board.ts taskBoard). */
export interface TaskBoard {
  list(lane: string, limit: number): readonly ModelTask[];
  /** Another lane's id answers exactly like a missing one. */
  /**
   * `logTail` is null when the boundary withheld it (the tool's own rules: a local path, a secret key, a PEM block).
   */
  get(
    lane: string,
    id: string,
  ):
    | { ok: true; task: ModelTask; result: unknown; logTail: string | null }
    | { ok: false; code: Code; message: string };
  /** Asks the task's supervisor to cancel; false when it had already ended. */
  cancel(lane: string, id: string): boolean;
}

export type SandboxMode = "off" | "product" | "bench";

/** A process request from a handler; the runtime adds environment, sandbox and artifacts. */
export interface ProcessRequest {
  readonly argv: readonly string[];
  /** Absolute, inside the workspace or scratch folder (the handler resolved it). */
  readonly cwd: string;
  readonly stdin?: string;
  readonly deadlineMs: number;
  /** Parent variables passed through by name (config-granted only). */
  readonly allowEnv?: readonly string[];
  /**
   * Parent variables passed through by name whose values are secrets (delegation.env): masked in every stream view,
   * like bound secrets.
   */
  readonly secretEnv?: readonly string[];
  /** Pass-through groups (e.g. "proxy"). */
  readonly envGroups?: readonly "proxy"[];
  /** Explicit values the child gets. */
  readonly values?: Readonly<Record<string, string>>;
  /** Run under the boot's sandbox mode (bash, dev_check, authored tools); false for none. */
  readonly sandboxed: boolean;
  /** Sandboxed: the only writable folders, the workspace read-only (a gate writes only its copy). */
  readonly writable?: readonly string[];
  /**
   * HOME is a fresh empty folder of the run's own in the state folder, removed when it ends (bash -lc: no dotfile
   * runs).
   */
  readonly home?: true;
  /**
   * A name the audit view also resolves, on the child's PATH or (with a `/`) against cwd: bash's command's first
   * word.
   */
  readonly auditName?: string;
  /** Told the output as it is drained, already redacted (a CI log shows a gate's output as it comes). */
  readonly output?: (stream: "stdout" | "stderr", text: string) => void;
}

/** The one way a handler starts a process: through the launcher, scrubbed, under the call's signal. */
export interface ProcessRunner {
  readonly sandboxMode: SandboxMode;
  run(req: ProcessRequest): Promise<Outcome<Execution>>;
}

/** What `needs()` may look at: roots to resolve argument paths against (no content reads). */
export interface NeedsContext {
  readonly workspace: string;
  /** The scratch folder (scratch_read's whole world). */
  readonly scratch: string;
  readonly stateDir: string;
  /** Configured skill folders (absolute), in order. */
  readonly skillDirs: readonly string[];
}

/** What one call is scoped to, the same for every tool: built by the entry point, passed whole. */
export interface CallScope extends NeedsContext {
  /** The lane this call belongs to (`--lane`, default "default"). */
  readonly lane: string;
  /** Opened on first use: tools that do not keep records never touch the database. */
  readonly store: () => LaneStore;
  /** This lane's background tasks (task_list, task_status, task_control, yield_until); absent: none kept. */
  readonly tasks?: () => TaskBoard;
  /** The effective configuration's values (`toolgate config`): a tool reads its own section (bash, gates). */
  readonly config?: ConfigData;
  /** toolgate's own control files (config, lock, authored-tools folder): file tools never write them. */
  readonly controlFiles?: readonly string[];
  /**
   * Whether a well-known secret file (absolute real path) is named in a read grant: walks keep only those
   * (skippedSecretFiles).
   */
  readonly namedSecret?: (abs: string) => boolean;
  /** Writes one line to the operator view (stderr, never the result): CI annotations, for instance. */
  readonly operator?: (line: string) => void;
  /** Says what the call is doing now, in a few words ("unit (2 of 4)"), for a terminal's status line. */
  readonly activity?: (text: string) => void;
  /** The CI the call runs in, for what a CI log shows (dev_check): GitHub Actions, another CI, or none. */
  readonly ci?: "github" | "plain";
  /** Appends Markdown to the CI job's step summary (GitHub Actions' GITHUB_STEP_SUMMARY), when there is one. */
  readonly stepSummary?: (markdown: string) => void;
  /** The network, under the URL policy and the grants (src/http): the only way a tool reaches a URL. */
  readonly http?: HttpClient;
  /** Most (from most.url and most.service_token_file), when configured: the token is read per call. */
  readonly most?: { readonly url: string; readonly tokenFile: string };
  /** Records a resource this call created in the world (kept with the call's journal row). */
  readonly created?: (tool: string, kind: string, id: string) => void;
  /** The rails' endpoints and credentials (from the environment), by group: `bank`, `research`. */
  readonly rails?: Readonly<Record<string, { readonly url: string; readonly token: string } | undefined>>;
  /** What `task` needs to start a child toolgate (built by the runtime; absent outside it). */
  readonly delegation?: DelegationScope;
  /**
   * Who answers an MCP server's elicitation or sampling during a call of its tool, and sees its progress (the
   * terminal, a served client).
   */
  readonly peer?: (call: { readonly tool: string; readonly server: string }) => Peer;
  /** This call's span as W3C trace context, when telemetry is on: an MCP request carries it on. */
  readonly trace?: () => { readonly traceparent: string; readonly tracestate?: string | undefined };
  /**
   * The caller's deadline for this call (`call --timeout`), already bounded by the tool's time
   * limit: a tool that times its own runs (bash, an authored tool, an MCP request) uses it in place
   * of its default; the pipeline's own timer never waits longer.
   */
  readonly timeoutSecs?: number;
}

/** How a `task` call starts its child's server and files the child's journal rows under itself. */
export interface DelegationScope {
  /** How to run this toolgate: the compiled binary (or bun and src/main.ts). */
  readonly self: readonly string[];
  /**
   * The parent's config file as read (the child boots what of it applies, from a copy, with --config: the parent
   * trusted it).
   */
  readonly configData: ConfigData | null;
  /** The parent's read grant (--allow-read and the config's), which the scout child gets no more than. */
  readonly readGrant: true | readonly string[] | undefined;
  /** The parent's denies (flags and config): a child is never let past one, whatever its own grants. */
  readonly denies: Readonly<Partial<Record<string, true | readonly string[]>>>;
  /** The journal id of this call's own row (child rows point to it). */
  readonly callId: () => number | undefined;
  /** Moves a child's journal rows (its own state folder) into this journal under `parent`; returns how many. */
  readonly adopt: (childState: string, parent: number | undefined) => number;
}

/** One bounded GET (or request) through the URL policy: refusals are `url.rejected` or `net.*`. */
export interface HttpClient {
  get(url: string, opts: HttpGetOptions): Promise<Outcome<HttpBody>>;
}
export interface HttpGetOptions {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Operator endpoints (rails, Most): trusted for their address class, still scheme-checked. */
  readonly operatorEndpoint?: boolean;
}
export interface HttpBody {
  readonly status: number;
  /** The URL that answered, after redirects. */
  readonly url: string;
  readonly contentType: string;
  readonly bytes: Uint8Array;
  /** The body was longer than maxBytes: the rest was never read. */
  readonly truncated: boolean;
  readonly redirects: number;
}

/** What a handler may use: the call's scope plus what the pipeline binds to this one run. */
export interface ToolContext extends CallScope {
  /**
   * The needs as the permission stage checked them, in needs() order, each read/write value the
   * real path it matched: a file tool opens exactly these (src/fs/opened.ts). Absent outside the pipeline.
   */
  readonly checked?: readonly Need[];
  /** Subprocesses, through the launcher (only the launcher spawns), under this call's signal. */
  readonly processes: ProcessRunner;
  readonly signal: AbortSignal;
  readonly now: () => number;
  /** Facts for this call's journal row detail (such as `elicited`): never values the user gave. */
  readonly record?: (facts: Readonly<Record<string, string>>) => void;
}

/**
 * A tool as its file declares it. `needs` and `handler` are methods, so a declaration of any input
 * type is a ToolDeclaration (of unknown input): both are called only with arguments its schema accepted.
 */
export interface ToolDeclaration<T extends Type<unknown> = Type<unknown>> {
  readonly name: string;
  readonly description: string;
  readonly input: (t: typeof arkType) => T;
  /** Undeclared means `irreversible` (fail closed). */
  readonly effect?: EffectClass;
  /** Returns text from outside the workspace (a web page): the boundary's local-path rule applies. */
  readonly foreignOutput?: true;
  /** The arguments as the journal shows them (audit view), when they carry what it must not keep. */
  readonly audit?: (args: unknown) => unknown;
  readonly approval: ApprovalPolicy;
  /** The permissions a call needs, or a refusal (a path leaving the workspace). Pure checks only. */
  needs(args: T["infer"], ctx: NeedsContext): Outcome<Need[]>;
  /**
   * The tool bounds its own running time (bash, dev_check: per-process timeouts through the
   * launcher), so the call's default deadline must not cut it short.
   */
  readonly ownDeadline?: true;
  /** With ownDeadline: the longest a call may be given (`call --timeout` is bounded by it), from the config. */
  readonly timeLimit?: (config: ConfigData | undefined) => TimeLimit;
  /**
   * Values bound to every call of this tool (delegation.env's, read at boot): redacted from each of its views, like
   * bound secrets.
   */
  readonly secrets?: readonly string[];
  handler(args: T["infer"], ctx: ToolContext): Promise<Outcome<unknown>>;
}

/** The longest a tool's call may run, and the setting that says so (named when `call --timeout` asks for more). */
export interface TimeLimit {
  readonly secs: number;
  readonly setBy: string;
}

export function defineTool<T extends Type<unknown>>(decl: ToolDeclaration<T>): ToolDeclaration<T> {
  return decl;
}
