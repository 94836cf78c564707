// serve's command-line choices checked before anything is served: no stray argument, a lane name
// that can name a lane, and --expose naming an MCP server of the config (else the near name and
// the configured ones). Also which catalog name each name a client sees stands for, so --approve
// takes either. Each refusal is a usage error (exit 2) saying what to write instead.
import { usageError } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import type { Booted } from "../runtime/boot.ts";
import { mcpServerOf } from "../catalog/origin.ts";

/** A stray argument or a lane name that cannot name a lane is refused; the lane (default "default") otherwise. */
export function serveLane(positionals: readonly string[], lane: string | undefined): string {
  if (positionals.length > 0)
    throw usageError(
      `unexpected argument "${positionals[0]}"`,
      "toolgate serve [--profile NAME] [--child] [--approve TOOL]",
    );
  const name = lane ?? "default";
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name))
    throw usageError(`--lane ${JSON.stringify(name)}: a lane name is 1-64 letters, digits, "_", "." or "-"`);
  return name;
}

/** --expose must name an MCP server of the config. */
export function checkExpose(remote: Booted["remote"], expose: string | undefined): void {
  if (expose === undefined || remote?.spec(expose)?.kind === "mcp") return;
  const names = (remote?.status ?? []).filter((st) => mcpServerOf(st.origin) !== undefined).map((st) => st.name);
  throw usageError(
    `--expose ${JSON.stringify(expose)}: no MCP server of that name in the config${didYouMean(nearest(expose, names))}`,
    names.length > 0 ? `configured: ${names.join(", ")}` : "declare it under mcpServers in toolgate.json",
  );
}

/**
 * Served name → catalog name: with --expose, the exposed server's tools under its own names; else the mapped names
 * (--name-budget).
 */
export function servedToCatalog(
  booted: Pick<Booted, "catalog">,
  fromServed: ReadonlyMap<string, string>,
  expose: string | undefined,
): ReadonlyMap<string, string> {
  if (expose === undefined) return fromServed;
  const own = [...booted.catalog.entries.values()].filter((e) => mcpServerOf(e.origin) === expose);
  return new Map(own.map((e) => [e.rawName, e.name]));
}
