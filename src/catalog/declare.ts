// The declaration API: one file per built-in tool exports `defineTool({...})`.
// `input` is an arktype type behind a thunk, so the hot path never loads arktype:
// the build exports each input to JSON Schema (src/generated/schemas.ts) and the
// runtime validates against that, loading arktype only to explain a failure.
import type { Type, type as arkType } from "arktype";
import type { Need } from "../permission/types.ts";
import type { Outcome } from "../result/result.ts";

export const EFFECTS = ["read", "idempotent-write", "reversible", "irreversible"] as const;
export type EffectClass = (typeof EFFECTS)[number];
export type ApprovalPolicy = "required" | "never";

/** What a handler may use: handed in by the pipeline, already scoped to the grants. */
export interface ToolContext {
  readonly workspace: string;
  readonly stateDir: string;
  readonly signal: AbortSignal;
  readonly now: () => number;
}

/** What `needs()` may look at: the workspace root, to resolve argument paths (no content reads). */
export interface NeedsContext {
  readonly workspace: string;
}

export interface ToolDeclaration<T extends Type<any, any> = Type<any, any>> {
  readonly name: string;
  readonly description: string;
  readonly input: (t: typeof arkType) => T;
  /** Undeclared means `irreversible` (fail closed). */
  readonly effect?: EffectClass;
  readonly approval: ApprovalPolicy;
  /** The permissions a call needs, or a refusal (a path leaving the workspace). Pure checks only. */
  readonly needs: (args: T["infer"], ctx: NeedsContext) => Outcome<Need[]>;
  readonly handler: (args: T["infer"], ctx: ToolContext) => Promise<Outcome<unknown>>;
}

export function defineTool<T extends Type<any, any>>(decl: ToolDeclaration<T>): ToolDeclaration<T> {
  return decl;
}
