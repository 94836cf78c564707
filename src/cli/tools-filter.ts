// `toolgate tools` filters: a name glob (`'file_*'`), --source (builtin, authored, las, mcp,
// mcp:NAME, or a glob such as `mcp:*`) and --effect (the effect classes, or `write`: any that
// writes). A source or effect that cannot be is a usage error naming the choices.
import { EFFECTS } from "../catalog/declare.ts";
import { CliError, ExitCode, usageError } from "../result/result.ts";
import type { Booted } from "../runtime/boot.ts";
import { parseNameBudget } from "../serve/names.ts";
import { bool, multi, str, type Scanned } from "./flags.ts";
import { formatOrigin, mcpServerOf } from "../catalog/origin.ts";

export interface ToolFilter {
  /** Whether the descriptor passes every filter given. */
  readonly keeps: (d: { readonly name: string; readonly origin: string; readonly effect: string }) => boolean;
  /** Whether any filter was given. */
  readonly active: boolean;
}

const GLOB = /[*?[{]/;
export const isGlob = (s: string): boolean => GLOB.test(s);

/** Every effect class that writes: what `--effect write` stands for. */
const WRITES: readonly string[] = EFFECTS.filter((e) => e !== "read");

/** --effect values (repeatable, comma lists), checked before anything boots. */
export function parseEffects(values: readonly string[]): Set<string> | undefined {
  if (values.length === 0) return undefined;
  const out = new Set<string>();
  for (const v of values
    .flatMap((x) => x.split(","))
    .map((x) => x.trim())
    .filter(Boolean)) {
    if (v === "write") for (const e of WRITES) out.add(e);
    else if ((EFFECTS as readonly string[]).includes(v)) out.add(v);
    else
      throw usageError(
        `--effect ${JSON.stringify(v)}: not an effect class`,
        `the effects are: ${EFFECTS.join(", ")}, or write (${WRITES.join(", ")})`,
      );
  }
  return out;
}

/**
 * --source values against the sources this config has (`known`: builtin, authored, las, mcp:NAME for
 * each configured server, listed or not). `mcp` is every MCP server; a glob matches origins.
 */
export function parseSources(
  values: readonly string[],
  known: readonly string[],
): ((origin: string) => boolean) | undefined {
  const wanted = values
    .flatMap((x) => x.split(","))
    .map((x) => x.trim())
    .filter(Boolean);
  if (wanted.length === 0) return undefined;
  const tests = wanted.map((w) => {
    if (w === "mcp") return (o: string) => mcpServerOf(o) !== undefined;
    if (isGlob(w)) {
      const g = new Bun.Glob(w);
      return (o: string) => g.match(o);
    }
    if (!known.includes(w))
      throw usageError(
        `--source ${JSON.stringify(w)}: no such source in this catalog`,
        `the sources are: ${[...known, "mcp"].join(", ")} (a glob such as mcp:* too)`,
      );
    return (o: string) => o === w;
  });
  return (o) => tests.some((t) => t(o));
}

export function toolFilter(
  glob: string | undefined,
  sources: ((origin: string) => boolean) | undefined,
  effects: Set<string> | undefined,
): ToolFilter {
  const g = glob === undefined ? undefined : new Bun.Glob(glob);
  return {
    active: g !== undefined || sources !== undefined || effects !== undefined,
    keeps: (d) =>
      (g === undefined || g.match(d.name)) &&
      (sources === undefined || sources(d.origin)) &&
      (effects === undefined || effects.has(d.effect)),
  };
}

/** What `toolgate tools` was asked, its flags checked together: a name or a list, and what goes with what. */
export function toolsAsk(s: Scanned) {
  const [first, extra] = s.positionals;
  if (extra !== undefined)
    throw new CliError(ExitCode.usage, `unexpected argument "${extra}"`, "toolgate tools [NAME | 'GLOB']");
  const glob = first !== undefined && isGlob(first) ? first : undefined;
  const name = glob === undefined ? first : undefined;
  const effects = parseEffects(multi(s, "effect"));
  const filtered = glob !== undefined || effects !== undefined || multi(s, "source").length > 0;
  if (name !== undefined && (filtered || bool(s, "names")))
    throw usageError(
      `--source, --effect and --names filter the list: not one tool's descriptor (${name})`,
      "toolgate tools 'GLOB' --source S --effect E, or toolgate tools NAME",
    );
  if (bool(s, "lock") && (str(s, "profile") !== undefined || bool(s, "served") || filtered || bool(s, "names")))
    throw usageError(
      "--lock pins the whole catalog: it does not go with --profile, --served, --names or a filter",
      "drop them",
    );
  if (str(s, "name-budget") !== undefined && !bool(s, "served"))
    throw usageError("--name-budget goes with --served", "toolgate tools --served --name-budget N");
  const budget = parseNameBudget(str(s, "name-budget"));
  if (!budget.ok) throw usageError(budget.refusal.message);
  if (bool(s, "names") && bool(s, "refresh"))
    throw usageError(
      "--names starts no server: it does not go with --refresh",
      "toolgate tools --refresh first, then --names",
    );
  return { glob, name, effects, budget: budget.value };
}

/** The sources --source may name: the built-ins, authored tools, and each configured server, listed or not. */
export function knownSources(booted: Booted): string[] {
  const servers = Object.keys((booted.config.values.mcpServers ?? {}) as Record<string, unknown>).map((n) =>
    formatOrigin({ kind: "mcp", server: n }),
  );
  const seen = [
    ...booted.catalog.descriptors.map((d) => d.origin),
    ...(booted.remote?.status ?? []).map((st) => st.origin),
  ];
  return [
    ...new Set(["builtin", "authored", ...(booted.config.values.las?.enabled ? ["las"] : []), ...servers, ...seen]),
  ];
}
