// `toolgate serve`: this boot's catalog as an MCP server (stdio by default, --http: serve-http.ts). Every tools/call runs
// the pipeline `call` runs; stdout carries JSON-RPC only; permissions come from the flags and the
// config (never asked), approvals from --approve or the client's elicitation. Stops on stdin EOF,
// SIGINT or SIGTERM (HTTP: signals only): new calls refused, calls in flight get the grace, then every child ends.
import type { Database } from "bun:sqlite";
import { defineCommand } from "citty";
import { bootError, usageError } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import { SANDBOX_HINT, sandboxProblem } from "../launcher/sandbox.ts";
import { boot, type Booted } from "../runtime/boot.ts";
import { approvedNames } from "./approve-flag.ts";
import { Hub, type HubDeps } from "../serve/hub.ts";
import type { RemoteSources } from "../servers/sources.ts";
import { Relay } from "../serve/relay.ts";
import { HTTP_ARGS, HTTP_FLAGS, httpAfterBoot, httpChoice, startHttp } from "./serve-http.ts";
import { claimStdout, type StdoutSink } from "../serve/stdout.ts";
import { VERSION } from "../version.ts";
import { bool, multi, scanFlags, str } from "./flags.ts";
import { note } from "./ui.ts";
import { bootInput, type RunContext } from "./context.ts";
import { checkState, openChecked, stateError } from "./state.ts";
import { servingChoices } from "./serve-choices.ts";
import { telemetryFor } from "../telemetry/telemetry.ts";
import { withheldToolNotes } from "../servers/list.ts";

export default defineCommand({
  meta: {
    name: "serve",
    description:
      "Serve the catalog as an MCP server over stdio (or Streamable HTTP with --http): the same pipeline as call, narrowed by --profile and --child",
  },
  args: {
    profile: {
      type: "string",
      description: "Offer only this profile's tools: full (default), scout, writer, or one from the config's profiles",
      valueHint: "NAME",
    },
    child: {
      type: "boolean",
      description:
        "No human behind this session: tools that need approval are offered only when --approve covers them, and nothing is ever asked",
    },
    state: {
      type: "string",
      description:
        "The state folder (journal) for this session, over the config's: a task's child server gets its own, which the parent files under the task call",
      valueHint: "DIR",
    },
    expose: {
      type: "string",
      description:
        "Serve one configured MCP server exactly: its tools, resources and prompts under its own names, and its instructions (still checked by permissions, journal and boundary)",
      valueHint: "SERVER",
    },
    "name-budget": {
      type: "string",
      description:
        "Longest served name (16-64, default 44: room for a 20-character client prefix); longer or non-conforming names are shortened reversibly (toolgate tools --served shows the mapping)",
      valueHint: "N",
    },
    ...HTTP_ARGS,
  },
});

export async function runServe(ctx: RunContext): Promise<number> {
  // Before anything else can write: stdout is the protocol's alone.
  const stdout = claimStdout();
  const s = scanFlags(ctx.argv, {
    profile: { kind: "string" },
    child: { kind: "bool" },
    state: { kind: "string" },
    "name-budget": { kind: "string" },
    expose: { kind: "string" },
    ...HTTP_FLAGS,
  });
  if (s.positionals.length > 0)
    throw usageError(
      `unexpected argument "${s.positionals[0]}"`,
      "toolgate serve [--profile NAME] [--child] [--approve TOOL]",
    );
  const lane = str(s, "lane") ?? "default";
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(lane))
    throw usageError(`--lane ${JSON.stringify(lane)}: a lane name is 1-64 letters, digits, "_", "." or "-"`);
  const asked = httpChoice(s);
  // Nobody is asked at a terminal: permissions come from the flags and the config only.
  const booted = await boot({
    ...bootInput(ctx, s),
    interactive: false,
    beforeStart: checkState,
    child: bool(s, "child"),
    relaySampling: !bool(s, "child"),
  });
  let db: Database | undefined;
  // Each call's span, exported from this process off the calls' path (when the environment asks for it).
  const telemetry = telemetryFor(ctx.env, "live", (line) => void process.stderr.write(`${line}\n`));
  try {
    const problem = await sandboxProblem(booted.sandbox, booted.workspace);
    if (problem !== null) throw bootError(problem, SANDBOX_HINT);
    const http = asked && httpAfterBoot(asked, booted);
    const choices = servingChoices(booted, str(s, "profile"), str(s, "name-budget"));
    const expose = str(s, "expose");
    const remote = booted.remote;
    if (expose !== undefined && remote?.spec(expose)?.kind !== "mcp") {
      const names = (remote?.status ?? []).filter((st) => st.origin.startsWith("mcp:")).map((st) => st.name);
      throw usageError(
        `--expose ${JSON.stringify(expose)}: no MCP server of that name in the config${didYouMean(nearest(expose, names))}`,
        names.length > 0 ? `configured: ${names.join(", ")}` : "declare it under mcpServers in toolgate.json",
      );
    }
    // --approve takes the names a client sees too (--expose: the server's own); any other name is refused here.
    const approved = approvedNames(
      multi(s, "approve"),
      booted,
      servedToCatalog(booted, choices.names.fromServed, expose),
    );
    // A tool the output boundary kept out of a server's listing is not served: the operator hears which rule and where.
    if (!bool(s, "quiet")) for (const line of withheldToolNotes(remote?.status ?? [])) note(line);
    db = openChecked(booted.config);
    // The hub runs each relayed request; the relay is made first, so it reaches the hub late.
    let runRelayed: Hub["runRelayed"] | undefined;
    const relay = remote
      ? new Relay({
          sources: remote,
          ...(expose !== undefined ? { expose } : {}),
          run: (...a) => runRelayed!(...a),
          operator: (line) => void process.stderr.write(`${line}\n`),
        })
      : undefined;
    const hub = new Hub({
      wiring: {
        booted,
        env: ctx.env,
        db: () => db!,
        lane,
        approved,
        operator: (line) => void process.stderr.write(`${line}\n`),
        unstarted: (e) => {
          throw stateError(booted.config, e, "the call was not run");
        },
        unfinished: (e) =>
          note(
            stateError(
              booted.config,
              e,
              "a call's journal row was not finished; `toolgate log` shows it as indeterminate",
            ).message,
          ),
        ...(telemetry ? { telemetry } : {}),
      },
      profile: choices.profile,
      child: bool(s, "child"),
      names: choices.names,
      refusedNow: (name) => booted.remote?.refusedNow(name),
      version: VERSION,
      ...(relay ? { relay } : {}),
      ...(expose !== undefined && remote ? { exposed: exposedServer(remote, expose) } : {}),
    });
    runRelayed = (...a) => hub.runRelayed(...a);
    // Las and the MCP servers live as long as serve: a child that dies is restarted with backoff,
    // and clients hear of every change in what is served.
    await booted.remote?.supervise({ onChange: () => void hub.listChanged(), onEvent: (line) => note(line) });
    const listening = http
      ? await startHttp(hub, http, { booted, line: { profile: choices.profile, approved } })
      : undefined;
    if (!listening) {
      const { StdioTransport } = await import("../serve/stdio.ts");
      const transport = new StdioTransport(process.stdin, stdout);
      await hub.connect(transport, { sessionApprovals: false });
    }
    if (bool(s, "verbose"))
      note(
        `serving ${hub.tools().length} tools over ${listening ? "HTTP" : "stdio"} (profile ${choices.profile.name}${bool(s, "child") ? ", child" : ""})`,
      );
    // An HTTP server may run with stdin closed: only a signal stops it.
    const why = await stopSignal(!listening, stdout);
    listening?.refuseNewSessions();
    const graceMs = booted.config.values.las.shutdown_grace_secs * 1000;
    if (!bool(s, "quiet")) note(`stopping (${why}): new calls are refused; calls in flight get ${graceMs / 1000} s`);
    await hub.drain(graceMs);
    await hub.close();
    await listening?.stop();
    return 0;
  } finally {
    await booted.remote?.shutdown();
    db?.close();
    // The last batch of spans goes out, waiting at most a second.
    await telemetry?.finish(1_000);
    process.stdin.destroy();
  }
}

/** Served name → catalog name: with --expose, the exposed server's tools under its own names; else the mapped names (--name-budget). */
function servedToCatalog(
  booted: Booted,
  fromServed: ReadonlyMap<string, string>,
  expose: string | undefined,
): ReadonlyMap<string, string> {
  if (expose === undefined) return fromServed;
  const own = [...booted.catalog.entries.values()].filter((e) => e.origin === `mcp:${expose}`);
  return new Map(own.map((e) => [e.rawName, e.name]));
}

/**
 * `--expose NAME`: its tools as listed, and as it lists them to a client that declared less than
 * toolgate's shared connection does (a connection of that kind, client-declared.ts).
 */
function exposedServer(remote: RemoteSources, name: string): NonNullable<HubDeps["exposed"]> {
  const spec = remote.spec(name)!;
  return {
    server: name,
    listed: () => remote.listedTools(name),
    declaring: async (declared) =>
      remote.declaresAsShared(declared)
        ? undefined
        : (await remote.connection(spec, declared)).tools.map((t) => t.name),
  };
}

/** Resolves on the first of SIGINT, SIGTERM or (when `stdin`) stdin's end or stdout's reader gone, saying which. */
function stopSignal(stdin: boolean, stdout: StdoutSink): Promise<string> {
  return new Promise((resolve) => {
    let stopped = false;
    const eof = () => stop("stdin closed");
    const int = () => stop("SIGINT");
    const term = () => stop("SIGTERM");
    const stop = (why: string) => {
      if (stopped) return;
      stopped = true;
      process.stdin.off("end", eof).off("close", eof);
      process.off("SIGINT", int).off("SIGTERM", term);
      resolve(why);
    };
    if (stdin) {
      process.stdin.once("end", eof).once("close", eof);
      stdout.onGone(() => stop("stdout closed: the client is gone"));
    }
    process.once("SIGINT", int).once("SIGTERM", term);
  });
}
