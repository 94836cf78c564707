// `toolgate call TOOL [ARGS_JSON | @FILE | - | --arg k=v ...] [--timeout SECS]`: boot, run one
// call through the pipeline, print exactly the result JSON on stdout, exit with the outcome's code.
import { isTerminal, READING_STDIN, writeStderr } from "../result/io.ts";
import { defineCommand } from "citty";
import type { Database } from "bun:sqlite";
import { jsonForTerminal } from "../result/escape.ts";
import { exitCodeFor } from "../result/exit.ts";
import { bootError, Interrupted, usageError } from "../result/result.ts";
import { SANDBOX_HINT, sandboxProblem } from "../launcher/sandbox.ts";
import { guardSelf, warmGuard } from "../launcher/guard.ts";
import type { LaunchWatch } from "../launcher/types.ts";
import { AUTHORED_ORIGIN } from "../catalog/authored.ts";
import { boot, type Booted } from "../runtime/boot.ts";
import { invoke } from "../runtime/invoke.ts";
import { callDeps, type CallWiring } from "../runtime/call-deps.ts";
import { approvedNames } from "./approve-flag.ts";
import { bool, multi, str } from "./flags.ts";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Entry } from "../catalog/catalog.ts";
import { boundTimeout, MAX_TIMEOUT_SECS } from "../runtime/timeout.ts";
import { note, tell, writeOut } from "./ui.ts";
import { approvalPrompter } from "./approval-prompt.ts";
import { bootInput, type RunContext } from "./context.ts";
import { checkState, openChecked, stateError } from "./state.ts";
import { admitTask } from "../tasks/start.ts";
import { telemetryFor } from "../telemetry/telemetry.ts";

export default defineCommand({
  meta: { name: "call", description: "Run one tool call and print its result JSON (stdout) with the outcome's exit code" },
  args: {
    tool: { type: "positional", description: "Tool name (see `toolgate tools`)", required: false, complete: "tools" },
    args: { type: "positional", description: "Arguments as one JSON object, @FILE to read it from a file (relative to the current folder), or - to read it from stdin", required: false },
    arg: { type: "string", repeat: true, description: "key=value argument (repeatable); the value parses as JSON when it can, else is a string", valueHint: "k=v" },
    background: { type: "boolean", description: "Check permissions and approval here, then run the call as a background task: prints {\"task_id\",\"status\":\"queued\"} at once (see `toolgate tasks`)" },
    "write-scope": { type: "string", description: "With --background: a name only one active task may hold at a time (a second is refused task.write_scope_busy)", valueHint: "S" },
    profile: { type: "string", description: "Narrow the catalog for this call to a profile's tools (scout, writer, full, or one from the config's profiles): a tool it leaves out is refused profile.excluded", valueHint: "NAME" },
    "dry-run": { type: "boolean", description: "Say what the call would need (each permission, the approval) and whether it would run now, as JSON: nothing is asked, run or journaled; flags lists what to add" },
    timeout: { type: "string", description: "This call's deadline in seconds, in place of the tool's own, never past what the tool allows (an MCP server's timeout_secs, an authored tool's timeout_secs, bash.max_timeout_secs, 300 s for other built-ins; a longer one is cut to that, with a note); when it passes, the call's process tree is ended", valueHint: "SECS" },
  },
});

export async function runCall(ctx: RunContext): Promise<number> {
  const s = ctx.flags;
  const timeout = parseTimeout(str(s, "timeout"));
  const background = bool(s, "background");
  const dryRun = bool(s, "dry-run");
  if (dryRun && background) throw usageError("--dry-run runs nothing, so nothing goes to the background", "drop one of --dry-run and --background");
  const writeScope = str(s, "write-scope");
  if (writeScope !== undefined && !background) throw usageError("--write-scope goes with --background", "toolgate call TOOL ARGS --background --write-scope NAME");
  if (writeScope !== undefined && (writeScope === "" || writeScope.length > 200)) throw usageError("--write-scope: give a name of 1-200 characters");
  const [tool, json, ...extra] = s.positionals;
  if (tool === undefined) throw usageError("call needs a tool name", "toolgate call TOOL '{\"key\":\"value\"}' (toolgate tools lists the names)");
  if (extra.length > 0) throw usageError(`unexpected argument "${extra[0]}"`, "give the arguments as ONE JSON object (quote it), as @FILE, as -, or as --arg key=value");
  const lane = str(s, "lane") ?? "default";
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(lane)) throw usageError(`--lane ${JSON.stringify(lane)}: a lane name is 1-64 letters, digits, "_", "." or "-"`);
  // On a terminal, `-` waits for typing: say so (a forwarded call's client says it: session/client.ts).
  if (json === "-" && ctx.via === undefined && !bool(s, "quiet") && isTerminal(0)) writeStderr(READING_STDIN);
  const args = await parseCallArgs(json, multi(s, "arg"), ctx.readStdin, ctx.cwd);
  // Someone can be asked only when prompting is on and a controlling terminal exists; otherwise
  // refusals name the flag (approval.required / permission.denied) instead of a "no" at a prompt.
  // The state is checked before anything starts (without writing: a failed boot writes nothing),
  // and opened before the call: a call toolgate cannot journal never runs.
  // call: tool limits which servers a catalog-cache miss may start (none for a built-in).
  // Sandbox off and bash or a gate: the command's guardian starts as soon as the config says so.
  const beforeStart = (config: Parameters<typeof checkState>[0]) => {
    checkState(config);
    if (!background && config.values.sandbox === "off" && SANDBOXED_BUILTINS.has(tool)) warmSelf();
  };
  let db: Database | undefined;
  // A server started for the call journals its start in the call's database once that is open.
  // A dry run asks nobody: what is not granted is reported, not prompted for.
  const input = { ...bootInput(ctx, s), ...(dryRun ? { interactive: false } : {}), call: tool, beforeStart, stateDb: () => db };
  const booted = await boot(input);
  // --profile narrows this one call as a served session's profile does (loaded only when asked for).
  const profileName = str(s, "profile");
  const profile = profileName === undefined ? undefined : (await import("./serve-choices.ts")).profileFor(booted, profileName);
  // Spans, when the environment asks for them: a session's own exporter, else handed to the reaper after the result.
  const telemetry = ctx.telemetry ?? telemetryFor(ctx.env, "one-shot", (line) => writeStderr(`${line}\n`));
  let status: Awaited<ReturnType<typeof statusFor>> | undefined;
  let unjournaled: unknown;
  // Whatever happens after the boot (even a bug), the children it started are shut down.
  try {
    // An --approve name that is no tool is a usage error before anything else happens.
    const approved = approvedNames(multi(s, "approve"), booted, undefined, tool);
    await checkSandbox(booted, tool, bool(s, "verbose"));
    if (!background) warmGuardFor(booted, tool);
    db = ctx.stateDb ? ctx.stateDb(booted.config) : openChecked(booted.config);
    // Ctrl-C or TERM cancels the call: the launcher ends the child's tree, and the result
    // (cancelled, or interrupted for a remote effect, naming the signal) is still printed and
    // journaled; the exit code is 130 or 143. In a session, the client's Ctrl-C arrives as ctx.signal
    // (its reason names the signal).
    const cancel = new AbortController();
    if (ctx.signal) ctx.signal.addEventListener("abort", () => cancel.abort(ctx.signal!.reason), { once: true });
    else {
      process.once("SIGINT", () => cancel.abort(new Interrupted("SIGINT")));
      process.once("SIGTERM", () => cancel.abort(new Interrupted("SIGTERM")));
    }
    // On a terminal, a call that runs past a moment shows what it is doing on one updating line.
    status = !background && ctx.via === undefined && isTerminal(2) && !bool(s, "quiet") ? await statusFor(tool) : undefined;
    // An MCP tool's server may ask for input or report progress while it runs (loaded only for them).
    const entry = booted.catalog.entries.get(tool);
    const terminal = entry && (entry.origin.startsWith("mcp:") || entry.origin === "las") ? (await import("./call-peer.ts")).terminalPeer({
            // A session has no terminal of its own: a forwarded call's form is declined, saying how to be asked.
            ask: booted.canPrompt && ctx.via === undefined,
            ...(ctx.via === undefined ? {} : { whyNot: "a call forwarded to a session cannot show a form (run it with --no-session to be asked)" }),
            progress: ctx.via === undefined && isTerminal(2),
            ...(status ? { status: status.line } : {}),
            err: writeStderr,
          }) : undefined;
    const wiring: CallWiring = {
      booted,
      env: ctx.env,
      db: () => db!,
      lane,
      approved,
      ask: booted.canPrompt && !dryRun ? approvalPrompter(booted.stateDir, ctx.ask) : undefined,
      operator: (line) => {
        status?.line.pause();
        writeStderr(`${line}\n`);
        status?.line.resume();
      },
      unstarted: (e) => {
        throw stateError(booted.config, e, "the call was not run");
      },
      unfinished: (e) => void (unjournaled = e),
      ...(ctx.via ? { via: ctx.via } : {}),
      ...(terminal ? { peer: terminal.peer } : {}),
      ...(telemetry ? { telemetry } : {}),
      ...(status ? { watch: status.watch, activity: status.activity } : {}),
      ...(profile ? { profile } : {}),
    };
    const timeoutSecs = timeout === undefined || entry === undefined ? undefined : boundedTimeout(tool, entry, timeout, booted, bool(s, "quiet"));
    const deps = callDeps({ ...wiring, ...(timeoutSecs === undefined ? {} : { timeoutSecs }) }, cancel.signal);
    // --background: the same stages here (a denial is exit 4 and starts nothing), then a task.
    const admit = background ? { admit: admitTask({ db: () => db!, booted, input, lane, writeScope: writeScope ?? null, env: ctx.env, ...(timeoutSecs === undefined ? {} : { timeoutSecs }) }) } : {};
    const silent = dryRun ? { dryRun: true, journal: () => {}, started: () => {} } : {};
    const { envelope, note: rejected, operator, task } = await invoke(tool, args, { ...deps, ...admit, ...silent });
    terminal?.finish();
    status?.line.stop();
    if (task !== undefined) {
      writeOut(jsonForTerminal({ task_id: task, status: "queued" }));
      return 0;
    }
    // The result first, then the children's shutdown (stdin closed, grace, kill): off its path (finally).
    writeOut(jsonForTerminal(envelope));
    if (unjournaled !== undefined) {
      await tell("warn", stateError(booted.config, unjournaled, "this call's journal row was not finished; `toolgate log` shows it as indeterminate").message);
    }
    // The operator view (stderr): failures always, unless --quiet; successes with --verbose.
    if (envelope.status !== "success" && !bool(s, "quiet")) {
      // A rejection's line names the tool, the rule and where (the envelope itself says only that).
      await tell("error", rejected ?? `${envelope.error_code}${"message" in envelope && envelope.message ? `: ${envelope.message}` : ""}`);
      if (operator !== undefined) note(operator);
    } else if (envelope.status === "success" && bool(s, "verbose")) {
      await tell("success", `${tool}: success`);
    }
    return exitCodeFor(envelope);
  } finally {
    status?.line.stop();
    // The result is out (and journaled): a cold call's children are shut down by a detached reaper,
    // off the caller's path; the process then exits once its output is written. A session keeps
    // its own (its pool) and shuts down any other in place.
    await booted.remote?.shutdown({ handOff: ctx.via === undefined });
    // The journal is closed after the output too: its rows are committed, and closing the last
    // connection checkpoints the WAL and syncs it to disk, which the result need not wait for.
    // A session's stays open (ctx.stateDb).
    if (!ctx.stateDb) db?.close();
    // A one-shot call's spans go to the detached reaper (a session's stay with its exporter).
    if (!ctx.telemetry) await telemetry?.finish();
  }
}

/** The status line of a call on a terminal, and the hooks that feed it: loaded only there. */
async function statusFor(tool: string) {
  const { statusLine, lastLine } = await import("./status-line.ts");
  // The width is read when the line is drawn, never on a fast call's path.
  const line = statusLine({ write: writeStderr, columns: () => process.stderr.columns || 80 });
  const watch: LaunchWatch = {
    spawned: () => line.begin(tool),
    output: (_stream, text) => {
      const last = lastLine(text);
      if (last !== undefined) line.detail(last);
    },
  };
  return { line, watch, activity: (text: string) => (line.begin(tool), line.detail(text)) };
}

/** Built-ins that start sandboxed processes; tools from other sources may too. */
const SANDBOXED_BUILTINS = new Set(["bash", "dev_check"]);

/**
 * Sandbox off, a tool that runs a command: its guardian (launcher/guard.ts) starts now, so that its
 * start overlaps the rest of the call (journal, permissions, approval) instead of delaying the command.
 */
function warmGuardFor(booted: Booted, tool: string): void {
  const entry = booted.catalog.entries.get(tool);
  if (booted.sandbox.wrapper || !entry || !(SANDBOXED_BUILTINS.has(tool) || tool === "task" || entry.origin === AUTHORED_ORIGIN)) return;
  warmSelf();
}

const warmSelf = () => {
  const self = guardSelf();
  if (self) warmGuard(self);
};

/**
 * States the sandbox mode (--verbose) and, when the call may use it, probes it: bwrap takes tens of
 * ms to start, so calls that never sandbox skip that. A mode that cannot be had fails the boot.
 */
async function checkSandbox(booted: Booted, tool: string, verbose: boolean): Promise<void> {
  const sandbox = booted.sandbox;
  if (verbose) note(`sandbox: ${sandbox.summary}`);
  const entry = booted.catalog.entries.get(tool);
  if (!sandbox.wrapper || !entry || (entry.adapter.builtin && !SANDBOXED_BUILTINS.has(tool))) return;
  const problem = await sandboxProblem(sandbox, booted.workspace);
  if (problem === null) return;
  await booted.remote?.shutdown();
  throw bootError(problem, SANDBOX_HINT);
}

/** `--timeout SECS`: seconds, more than 0 (a fraction too), at most what a timer can wait. */
export function parseTimeout(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const secs = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(secs) || secs <= 0 || secs > MAX_TIMEOUT_SECS) {
    throw usageError(`--timeout ${JSON.stringify(raw)}: expected a number of seconds, more than 0 and at most ${MAX_TIMEOUT_SECS}`, "for example --timeout 30, or --timeout 0.5");
  }
  return secs;
}

/** --timeout, bounded by what the tool allows; a longer one is cut to that, and the operator told. */
function boundedTimeout(tool: string, entry: Entry, asked: number, booted: Booted, quiet: boolean): number {
  const { secs, limit } = boundTimeout(entry, asked, booted.config.values);
  if (limit && !quiet) note(`--timeout ${asked}: ${tool} may run at most ${limit.secs} s (${limit.setBy}); the call's deadline is ${limit.secs} s`);
  return secs;
}

/** JSON positional, `@FILE` (relative to `cwd`), `-` (stdin), and/or `--arg k=v` pairs (values parse as JSON when they can). */
export async function parseCallArgs(json: string | undefined, pairs: readonly string[], readStdin: () => Promise<string>, cwd: string): Promise<unknown> {
  let args: unknown = {};
  if (json !== undefined) {
    const text = json === "-" ? await readStdin() : json.startsWith("@") ? argsFile(json.slice(1), cwd) : json;
    const where = json === "-" ? "stdin" : json.startsWith("@") ? json : "the arguments";
    try {
      args = JSON.parse(text);
    } catch (e) {
      throw usageError(`${where}: not valid JSON (${(e as Error).message})`, `pass one JSON object, e.g. '{"path":"README.md"}', or use --arg path=README.md`);
    }
  }
  if (pairs.length === 0) return args;
  if (args === null || typeof args !== "object" || Array.isArray(args)) throw usageError("--arg needs the JSON arguments (if any) to be an object");
  const out = { ...(args as Record<string, unknown>) };
  for (const p of pairs) {
    const eq = p.indexOf("=");
    if (eq <= 0) throw usageError(`--arg ${p}: expected key=value`, "for example --arg path=README.md or --arg limit=20");
    const raw = p.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      // not JSON: the string itself
    }
    out[p.slice(0, eq)] = value;
  }
  return out;
}

/** The text of `@FILE`: a file named on the command line is the caller's own choice; one that cannot be read is a usage error. */
function argsFile(name: string, cwd: string): string {
  if (name === "") throw usageError("@: name the file holding the arguments", "toolgate call TOOL @args.json");
  const path = resolve(cwd, name);
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a folder, not a file" : code === "EACCES" ? "not readable" : (e as Error).message;
    throw usageError(`@${name}: ${why} (${path})`, "name a JSON file, relative to the current folder, e.g. @args.json");
  }
}
