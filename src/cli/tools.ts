// `toolgate tools [NAME | GLOB] [--json] [--profile P] [--source S] [--effect E] [--names]`: the
// catalog as a table on a terminal, NDJSON when piped or with --json; with NAME, the whole
// descriptor and its input JSON Schema; a GLOB, --source and --effect filter the list (tools-filter.ts).
// --profile shows what a session with that profile is offered (the same narrowing `serve --profile`
// applies); --served the name each tool is served under (`serve --name-budget`); --names the names
// alone, from the catalog cache, starting no server (what shell completion asks).
import { defineCommand } from "citty";
import { bootError, CliError, ExitCode, usageError } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import { SANDBOX_HINT, sandboxProblem } from "../launcher/sandbox.ts";
import { renderLock, writeLock } from "../catalog/lock.ts";
import { boot, type Booted } from "../runtime/boot.ts";
import { bootInput, type RunContext } from "./context.ts";
import { bool, multi, scanFlags, str, type Scanned } from "./flags.ts";
import { escapeControl, jsonForTerminal } from "../result/escape.ts";
import { note, outputWidth, table, writeOut } from "./ui.ts";
import type { Profile } from "../serve/profiles.ts";
import { parseNameBudget, servedNames, type ServedNames } from "../serve/names.ts";
import { profileFor } from "./serve-choices.ts";
import { effectivePolicy } from "../approval/approval.ts";
import { withheldToolNotes } from "../servers/list.ts";
import { isGlob, parseEffects, parseSources, toolFilter, type ToolFilter } from "./tools-filter.ts";

/** The sources --source may name: the built-ins, authored tools, and each configured server, listed or not. */
function knownSources(booted: Booted): string[] {
  const servers = Object.keys(booted.config.values.mcpServers ?? {}).map(
    (n) => `mcp:${n}`,
  );
  const seen = [
    ...booted.catalog.descriptors.map((d) => d.origin),
    ...(booted.remote?.status ?? []).map((st) => st.origin),
  ];
  return [
    ...new Set(["builtin", "authored", ...(booted.config.values.las?.enabled ? ["las"] : []), ...servers, ...seen]),
  ];
}

export default defineCommand({
  meta: { name: "tools", description: "List the catalog, or show one tool's descriptor and input schema" },
  args: {
    name: {
      type: "positional",
      description: "Show this tool's whole descriptor; a glob (quote it: 'file_*') lists the tools it matches",
      required: false,
    },
    source: {
      type: "string",
      description:
        "Only the tools from this source (repeatable, or a comma list): builtin, authored, las, mcp (every MCP server), mcp:NAME, or a glob such as mcp:*",
      valueHint: "SOURCE",
    },
    effect: {
      type: "string",
      description:
        "Only the tools of this effect class (repeatable, or a comma list): read, idempotent-write, reversible, irreversible, or write (any but read)",
      valueHint: "EFFECT",
    },
    names: {
      type: "boolean",
      description:
        "Print the names alone, one a line: no server is started, the MCP servers' tools come from the catalog cache (shell completion asks this); no sandbox probe",
    },
    refresh: { type: "boolean", description: "List Las and the MCP servers again instead of using the catalog cache" },
    lock: {
      type: "boolean",
      description: "Write toolgate.lock: pin every tool's descriptor digest (renew after reviewing a change)",
    },
    profile: {
      type: "string",
      description:
        'Only the tools this profile offers: full (default), scout, writer, or one from toolgate.json "profiles"',
    },
    served: {
      type: "boolean",
      description: 'Show the name each tool is served under by `toolgate serve` (NDJSON: a "served" field)',
    },
    "name-budget": {
      type: "string",
      description: "With --served: the longest served name, 16-64 (default 44: 64 minus a 20-character client prefix)",
    },
  },
});

export async function runTools(ctx: RunContext): Promise<number> {
  const s = scanFlags(ctx.argv, {
    lock: { kind: "bool" },
    refresh: { kind: "bool" },
    profile: { kind: "string" },
    served: { kind: "bool" },
    "name-budget": { kind: "string" },
    source: { kind: "multi" },
    effect: { kind: "multi" },
    names: { kind: "bool" },
  });
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
  const booted = await boot({
    ...bootInput(ctx, s),
    ignoreLock: bool(s, "lock"),
    refresh: bool(s, "refresh"),
    cachedOnly: bool(s, "names"),
  });
  try {
    const profile = profileFor(booted, str(s, "profile"));
    const filter = toolFilter(glob, parseSources(multi(s, "source"), knownSources(booted)), effects);
    // The catalog holds sandboxed tools (bash, dev_check): a mode that cannot be had fails the boot.
    // Not for the names alone (shell completion): nothing is run or shown but names.
    const problem = bool(s, "names") ? null : await sandboxProblem(booted.sandbox, booted.workspace);
    if (problem !== null) throw bootError(problem, SANDBOX_HINT);
    // Listing needs no live server: they end first (a sandboxed one holds the paths of missing
    // control files, such as the lock --lock writes, with placeholders while it runs). A one-shot
    // process hands an unsandboxed child's shutdown (stdin closed, grace, kill) to the detached
    // reaper, as a cold call does: the listing does not wait out its exit (an HTTP session still
    // ends here, before the listing).
    await booted.remote?.shutdown({ handOff: ctx.via === undefined ? "children" : false });
    // Over the whole catalog, so a tool's served name does not depend on the profile.
    const served = bool(s, "served")
      ? servedNames(
          booted.catalog.descriptors.map((d) => d.name),
          budget.value,
        )
      : undefined;
    return listTools(booted, s, name, ctx, profile, served, filter);
  } finally {
    await booted.remote?.shutdown();
  }
}

function listTools(
  booted: Booted,
  s: Scanned,
  name: string | undefined,
  ctx: RunContext,
  profile: Profile,
  served: ServedNames | undefined,
  filter: ToolFilter,
): number {
  if (bool(s, "names")) {
    const names = booted.catalog.descriptors
      .filter((d) => profile.offers(d.name) && filter.keeps(d))
      .map((d) => escapeControl(d.name));
    if (names.length) writeOut(names.join("\n"));
    return 0;
  }
  // Which servers failed and why: human text, so stderr (stdout stays one descriptor per line).
  for (const st of booted.remote?.status ?? []) {
    if (bool(s, "quiet")) break;
    if (st.withheld !== undefined) note(`${st.origin} withheld (none of its tools is offered): ${st.withheld}`);
    else if (!st.ok)
      note(`${st.origin} failed${st.cached ? " (remembered, retried after 30 s)" : ""}: ${st.error ?? ""}`);
  }
  if (!bool(s, "quiet")) for (const line of withheldToolNotes(booted.remote?.status ?? [])) note(line);
  const json = bool(s, "json") || !ctx.stdoutIsTTY;
  // The sandbox mode: under the table, else on stderr (stdout stays one descriptor per line).
  if (json && !bool(s, "quiet")) note(`sandbox: ${booted.sandbox.summary}`);
  // The effective approval policy (a config that made a tool stricter shows "required"), as tools/list shows it.
  const overrides = booted.config.values.approval ?? {};
  const all = booted.catalog.descriptors.map((d) => ({ ...d, approval: effectivePolicy(d, overrides) }));
  const offered = all.filter((d) => profile.offers(d.name));
  const descriptors = name !== undefined ? offered : offered.filter((d) => filter.keeps(d));
  if (json && !bool(s, "quiet") && profile.name !== "full")
    note(`profile: ${profile.name} (${offered.length} of ${all.length} tools)`);
  if (bool(s, "lock")) {
    writeLock(booted.lockPath, renderLock(descriptors));
    note(`wrote ${booted.lockPath} (${descriptors.length} tools pinned)`);
    return 0;
  }
  const pin = (n: string) => booted.refused.get(n)?.code;
  // The served name right after the catalog name, when asked for.
  const withServed = <T extends { name: string }>({ name: n, ...rest }: T) =>
    served ? { name: n, served: served.toServed.get(n)!, ...rest } : { name: n, ...rest };
  if (name !== undefined) {
    const d = descriptors.find((x) => x.name === name);
    if (!d && all.some((x) => x.name === name))
      throw new CliError(
        ExitCode.failed,
        `profile.excluded: ${name} is not offered in profile "${profile.name}"`,
        "run `toolgate tools --profile " + profile.name + "` for what it offers",
      );
    if (!d)
      throw new CliError(
        ExitCode.failed,
        `unknown_tool: no tool named "${name}" in this catalog${didYouMean(
          nearest(
            name,
            descriptors.map((x) => x.name),
          ),
        )}`,
        "run `toolgate tools` for the list",
      );
    writeOut(jsonForTerminal(withServed(d), json && !bool(s, "json") ? 0 : 2));
    return 0;
  }
  if (json) {
    writeOut(
      descriptors
        .map(({ inputSchema: _, ...d }) =>
          jsonForTerminal(withServed(pin(d.name) ? { ...d, refused: pin(d.name) } : d)),
        )
        .join("\n"),
    );
    return 0;
  }
  // A server's tool whose name had to be mapped (dots, slashes, spaces, length) shows the name its server wrote.
  const mapped = descriptors.some((d) => d.original !== undefined);
  const rows = [
    [
      "NAME",
      ...(served ? ["SERVED"] : []),
      ...(mapped ? ["ORIGINAL"] : []),
      "ORIGIN",
      "EFFECT",
      "APPROVAL",
      "DIGEST",
      "DESCRIPTION",
    ],
  ];
  for (const d of descriptors) {
    rows.push([
      d.name,
      ...(served ? [served.toServed.get(d.name)!] : []),
      ...(mapped ? [d.original ?? ""] : []),
      d.origin,
      d.effect,
      d.approval + (d.note ? "*" : ""),
      d.digest.slice(0, 12) + (pin(d.name) ? ` (${pin(d.name)})` : ""),
      firstSentence(d.description),
    ]);
  }
  const notes = descriptors.filter((d) => d.note).map((d) => `* ${escapeControl(d.name)}: ${d.note}`);
  const shown =
    (profile.name === "full"
      ? ""
      : `profile: ${escapeControl(profile.name)} (${offered.length} of ${all.length} tools)\n`) +
    (filter.active ? `filtered: ${descriptors.length} of ${offered.length} tools\n` : "");
  writeOut(
    `${descriptors.length || !filter.active ? table(rows, outputWidth(ctx)) : "(no tool matches)"}\n\n${notes.length ? `${notes.join("\n")}\n` : ""}${shown}sandbox: ${escapeControl(booted.sandbox.summary)}`,
  );
  return 0;
}

const firstSentence = (s: string) => {
  const i = s.indexOf(". ");
  return i > 0 ? s.slice(0, i + 1) : s;
};
