// --approve names tools of this boot's catalog, or `all`. A name that is none of them approves
// nothing, and the run would go on to refuse every call of the tool meant: it is refused at start
// instead (exit 2), naming the nearest valid name. serve takes the names its clients see too.
import { usageError } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import type { Booted } from "../runtime/boot.ts";
import { approvedSet } from "../runtime/call-deps.ts";

/**
 * The approved set for this run: the names as given, plus the catalog name behind each served one
 * (`served`: served name → catalog name). A name that is not `all`, a catalog or served name, nor
 * possibly a tool of a server this boot did not list (a call starts only its own tool's) is refused.
 * `calling`: the tool a `call` runs; approving it under a name the catalog lacks is left to the
 * pipeline, whose unknown_tool (exit 1, journaled) says the same, as it always has.
 */
export function approvedNames(
  values: readonly string[],
  booted: Pick<Booted, "catalog" | "remote">,
  served: ReadonlyMap<string, string> = new Map(),
  calling?: string,
): Set<string> {
  const given = approvedSet(values);
  const known = (n: string) =>
    n === "all" ||
    n === calling ||
    booted.catalog.entries.has(n) ||
    served.has(n) ||
    booted.remote?.mayOwnUnlisted(n) === true;
  const unknown = [...given].filter((n) => !known(n));
  if (unknown.length > 0) {
    const names = [...served.keys(), ...booted.catalog.entries.keys(), "all"];
    const lines = unknown.map(
      (n) => `--approve ${n}: no tool named "${n}" in this catalog${didYouMean(nearest(n, names))}`,
    );
    throw usageError(
      lines.join("\n"),
      "`toolgate tools` lists the names (`--served` the names a client sees); --approve all approves every tool",
    );
  }
  for (const n of [...given]) {
    const name = served.get(n);
    if (name !== undefined) given.add(name);
  }
  return given;
}
