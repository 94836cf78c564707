// The factory that turns built-in declarations into catalog sources. Input schemas come
// from src/generated/schemas.json (exported from the arktype types at build time).
import { toolSchemas } from "../generated/schemas.ts";
import type { ToolDeclaration } from "./declare.ts";
import type { ToolSource } from "./catalog.ts";

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
      adapter: {
        builtin: true,
        ...(d.foreignOutput ? { foreignOutput: true } : {}),
        ...(d.audit ? { audit: d.audit } : {}),
        ...(d.secrets?.length ? { secrets: d.secrets } : {}),
        // Tools that bound their own time get the longest timer there is (about 24 days).
        ...(d.ownDeadline ? { deadlineMs: 2 ** 31 - 1 } : {}),
        ...(d.timeLimit ? { timeLimit: d.timeLimit } : {}),
        arkInput: d.input,
        needs: (args, ctx) => d.needs(args as never, ctx),
        run: (args, ctx) => d.handler(args as never, ctx),
      },
    };
  });
}
