// What a server declares passes the output boundary before any listing shows it: every field of
// each tool it lists (name, description, title, schemas, annotations, _meta, ...) is checked as
// that server's results are, under its --allow-local-paths choice. A tool that fails is kept out
// of the catalog (so out of `tools`, `serve` and `serve --expose`); the rule and where are kept.
import { checkDeclared } from "../boundary/boundary.ts";
import type { ListedTool } from "../mcp/session.ts";
import { catalogNameOf, type RemoteSpec } from "./specs.ts";

/** A tool the boundary kept out of its server's listing: which rule and where, never the value. */
export interface WithheldTool {
  /** The name its server gave it; absent when that name itself broke a rule. */
  readonly tool?: string;
  /** Its place in the server's listing, from 1 (names it when its name cannot be shown). */
  readonly position: number;
  /** The catalog name it would have had: a call of it is refused naming the rule. */
  readonly name: string;
  readonly rule: string;
  readonly where: string;
}

/**
 * Splits a server's listed tools into those shown and those the boundary withholds. `only` (a
 * catalog name: the tool a call runs) checks that tool alone and keeps the rest unchecked.
 */
export function checkListedTools(
  spec: RemoteSpec,
  tools: readonly ListedTool[],
  only?: string,
): { kept: ListedTool[]; withheld: WithheldTool[] } {
  const opts = { localPaths: spec.localPathsOff === undefined };
  const kept: ListedTool[] = [];
  const withheld: WithheldTool[] = [];
  tools.forEach((t, i) => {
    const name = catalogNameOf(spec, t.name);
    // The tool as its server listed it: serve --expose shows every field.
    const v =
      only !== undefined && name !== only
        ? null
        : checkDeclared({ name: t.name, description: t.description, inputSchema: t.inputSchema, ...t.extra }, opts);
    if (v === null) kept.push(t);
    else
      withheld.push({
        ...(/^\$\.name(?![\w$])/.test(v.where) ? {} : { tool: t.name }),
        position: i + 1,
        name,
        rule: v.rule,
        where: v.where,
      });
  });
  return { kept, withheld };
}
