// What a tool needs from the call pipeline, declared by the source that made it and carried by its
// catalog entry (`entry.terms`): how its arguments are checked, who settles its needs, the
// boundary's rules for its output, the secrets bound to it, its journal view, its deadline and
// where it acts. Every field is required, so a new source states each one (tsc refuses a gap);
// the stages read these, and the adapter only runs the tool.
import type { Type, type as arkType } from "arktype";
import type { ConfigData } from "../config/schema.ts";
import type { Check, Need } from "../permission/types.ts";
import type { TimeLimit } from "./declare.ts";

/** How the arguments are checked before anything else. */
export type Validation =
  /**
   * This binary's own tools: the check generated from the schema arktype exported (else the fast
   * check of it); `explain`, the arktype type behind it, used only to explain a failed check.
   */
  | { readonly kind: "generated"; readonly explain: ((t: typeof arkType) => Type<unknown>) | null }
  /**
   * A schema from outside (a server's, a manifest's): the complete validator; `defaults` filled in (an authored
   * tool's).
   */
  | { readonly kind: "external"; readonly defaults: boolean };

/** Who settles the tool's needs. */
export type Settle =
  /** The call's permission stage, on the session's grants. */
  | { readonly by: "grants" }
  /**
   * The source's own check (a server's start: flags or its start prompt, never the config's
   * grants), so a call and its connect ask once.
   */
  | { readonly by: "start"; readonly check: (need: Need) => Check | Promise<Check> };

/** The output boundary's local-path rule for the tool's result. */
export type LocalPaths =
  /** Held: no absolute path of this machine passes. */
  | { readonly rule: "on" }
  /** Off: a built-in speaks in workspace-relative paths of its own. */
  | { readonly rule: "own-words" }
  /** Lifted by the user for a server whose job is to answer with absolute paths: who did, for the journal. */
  | { readonly rule: "lifted"; readonly by: string };

/** The call's timer, and how far the caller's `--timeout` may go. */
export type Timing =
  /** The pipeline's default deadline; `--timeout` up to it. */
  | { readonly kind: "default" }
  /**
   * A deadline of the source's own (a server's request timeout, an authored tool's timeout_secs,
   * each with slack; the longest timer for a tool that times each of its own runs). `limit`: the
   * longest `--timeout` accepted (the source then applies it to its own runs), null for no bound.
   */
  | {
      readonly kind: "own";
      readonly deadlineMs: number;
      readonly limit: ((config: ConfigData | undefined) => TimeLimit) | null;
    };

export interface Terms {
  readonly validation: Validation;
  readonly settle: Settle;
  readonly boundary: {
    readonly localPaths: LocalPaths;
    /** A relayed resources/read (serve): an MCP App's `ui://` HTML is held to the transport's bound, not 64 KiB. */
    readonly apps: boolean;
  };
  /**
   * Secret values bound to the tool's calls, redacted from every view (live: a server's grows when an OAuth token is
   * read).
   */
  readonly secrets: readonly string[];
  /** What the journal's preview shows of the arguments (a URL as scheme://host:port); null: the arguments. */
  readonly audit: ((args: unknown) => unknown) | null;
  readonly time: Timing;
  /**
   * Where the call acts: `here`, this binary's own code (a deadline is a plain failure; no sandbox
   * to probe unless it starts processes); `outside`, a program or server whose effect a deadline
   * or a withheld answer leaves unknown (indeterminate).
   */
  readonly acts: "here" | "outside";
}
