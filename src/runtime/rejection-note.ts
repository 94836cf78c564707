// The operator's line (stderr) for a result the output boundary rejected: what was withheld and
// where, never the value. Part of the pipeline's last step (invoke.ts), kept beside it.
import type { Entry } from "../catalog/catalog.ts";
import type { BoundaryViolation } from "../boundary/boundary.ts";
import type { Refusal } from "../result/result.ts";
import { mcpServerOf } from "../catalog/origin.ts";

/**
 * The operator view of a rejection: the tool, the rule and where (a JSON path such as
 * `$.content[0].text`), never the value; what may have happened outside; how to lift a local-path
 * rejection for a server whose job is to answer with absolute paths (only the user can).
 */
export function rejectionNote(name: string, entry: Entry, v: BoundaryViolation, withheld: Refusal | undefined): string {
  const what = withheld ? `the server's error answer (${withheld.code}) was withheld` : "the result was withheld";
  const remote = entry.terms.acts === "outside";
  const acted = !remote
    ? ""
    : withheld
      ? "; the remote side may have acted"
      : "; the call ran, so its effect (if any) stands";
  const server = mcpServerOf(entry.origin);
  const fix =
    v.rule === "local_path" && server !== undefined
      ? `; if this server's job is to answer with absolute paths, --allow-local-paths=${server} lets them through`
      : "";
  return (
    `${name}: ${what} (sensitive_output_rejected): rule ${v.rule} at ${v.where}, the value is not ` +
    `shown${acted}${fix}`
  );
}
