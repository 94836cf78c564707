// The factory that turns built-in declarations into catalog sources. Input schemas come
// from src/generated/schemas.json (exported from the arktype types at build time).
import type { Type } from "arktype";
import { toolSchemas } from "../generated/schemas.ts";
import type { ToolDeclaration } from "./declare.ts";
import type { ToolSource } from "./catalog.ts";
import type { Terms } from "./terms.ts";

export const BUILTIN_ORIGIN = "builtin";

export function builtinSources(
  decls: readonly ToolDeclaration[],
  schemas: Record<string, unknown> = toolSchemas,
): ToolSource[] {
  return decls.map((d) => {
    const schema = schemas[d.name];
    if (schema === undefined) throw new Error(`no generated schema for built-in ${d.name}: run \`bun run gen\``);
    return {
      origin: BUILTIN_ORIGIN,
      rawName: d.name,
      name: d.name,
      description: d.description,
      inputSchema: schema,
      effect: d.effect,
      approval: d.approval,
      terms: builtinTerms(d),
      adapter: {
        needs: (args, ctx) => d.needs(args as never, ctx),
        run: (args, ctx) => d.handler(args as never, ctx),
      },
    };
  });
}

/**
 * What a built-in (this binary's own tool: the built-ins, the rails, Most's, delegation's) needs
 * from the pipeline: its generated check, the call's grants, its own words past the boundary
 * (workspace-relative paths) unless its output comes from outside, the default deadline unless it
 * times its own runs. What varies between built-ins comes from each one's declaration.
 */
export function builtinTerms(d: ToolDeclaration<Type<unknown>>): Terms {
  return {
    validation: { kind: "generated", explain: d.input },
    settle: { by: "grants" },
    boundary: { localPaths: d.foreignOutput ? { rule: "on" } : { rule: "own-words" }, apps: false },
    secrets: d.secrets ?? [],
    audit: d.audit ?? null,
    // Tools that bound their own time get the longest timer there is (about 24 days).
    time: d.ownDeadline ? { kind: "own", deadlineMs: 2 ** 31 - 1, limit: d.timeLimit ?? null } : { kind: "default" },
    acts: "here",
  };
}
