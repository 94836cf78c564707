// `toolgate tools [NAME | GLOB] [--json] [--profile P] [--source S] [--effect E] [--names]`: the
// catalog as a table on a terminal, NDJSON when piped or with --json; with NAME, the whole
// descriptor and its input JSON Schema; a GLOB, --source and --effect filter the list (tools-filter.ts).
// --profile shows what a session with that profile is offered (the same narrowing `serve --profile`
// applies); --served the name each tool is served under (`serve --name-budget`); --names the names
// alone, from the catalog cache, starting no server (what shell completion asks).
import { defineCommand } from "citty";
import { SANDBOX_HINT, sandboxProblem } from "../launcher/sandbox.ts";
import { bootError } from "../result/result.ts";
import { boot } from "../runtime/boot.ts";
import { servedNames } from "../serve/names.ts";
import { bootInput, type RunContext } from "./context.ts";
import { bool, multi, str } from "./flags.ts";
import { listTools } from "./render-tools.ts";
import { profileFor } from "./serve-choices.ts";
import { knownSources, parseSources, toolFilter, toolsAsk } from "./tools-filter.ts";

export default defineCommand({
  meta: { name: "tools", description: "List the catalog, or show one tool's descriptor and input schema" },
  args: {
    name: {
      type: "positional",
      complete: "tools",
      description: "Show this tool's whole descriptor; a glob (quote it: 'file_*') lists the tools it matches",
      required: false,
    },
    source: {
      type: "string",
      repeat: true,
      description:
        "Only the tools from this source (repeatable, or a comma list): builtin, authored, las, mcp (every " +
        "MCP server), mcp:NAME, or a glob such as mcp:*",
      valueHint: "SOURCE",
    },
    effect: {
      type: "string",
      repeat: true,
      description:
        "Only the tools of this effect class (repeatable, or a comma list): read, idempotent-write, " +
        "reversible, irreversible, or write (any but read)",
      valueHint: "EFFECT",
    },
    names: {
      type: "boolean",
      description:
        "Print the names alone, one a line: no server is started, the MCP servers' tools come from the " +
        "catalog cache (shell completion asks this); no sandbox probe",
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
  const s = ctx.flags;
  const ask = toolsAsk(s);
  const booted = await boot({
    ...bootInput(ctx, s),
    ignoreLock: bool(s, "lock"),
    refresh: bool(s, "refresh"),
    cachedOnly: bool(s, "names"),
  });
  try {
    const profile = profileFor(booted, str(s, "profile"));
    const filter = toolFilter(ask.glob, parseSources(multi(s, "source"), knownSources(booted)), ask.effects);
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
    const names = booted.catalog.descriptors.map((d) => d.name);
    const served = bool(s, "served") ? servedNames(names, ask.budget) : undefined;
    return listTools(booted, s, ask.name, ctx, profile, served, filter);
  } finally {
    await booted.remote?.shutdown();
  }
}
