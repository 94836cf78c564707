// `toolgate call TOOL [ARGS_JSON | @FILE | - | --arg k=v ...] [--timeout SECS]`: parse, open the
// runtime, run one call, print exactly the result JSON on stdout, exit with the outcome's code.
import { isTerminal, READING_STDIN, writeStderr } from "../result/io.ts";
import { defineCommand } from "citty";
import { usageError } from "../result/result.ts";
import { openRuntime } from "../runtime/runtime.ts";
import type { Profile } from "../runtime/invoke.ts";
import { telemetryFor } from "../telemetry/telemetry.ts";
import { approvedNames } from "./approve-flag.ts";
import { approvalPrompter } from "./approval-prompt.ts";
import { parseCallArgs, parseTimeout } from "./call-args.ts";
import { boundedTimeout, cancellation, render, statusFor, terminalFor, type Status } from "./call-view.ts";
import { bootInput, type RunContext } from "./context.ts";
import { bool, multi, scanFlags, str } from "./flags.ts";
import { checkState, openChecked, stateError } from "./state.ts";
import { note } from "./ui.ts";

export default defineCommand({
  meta: { name: "call", description: "Run one tool call and print its result JSON (stdout) with the outcome's exit code" },
  args: {
    tool: { type: "positional", description: "Tool name (see `toolgate tools`)", required: false },
    args: { type: "positional", description: "Arguments as one JSON object, @FILE to read it from a file (relative to the current folder), or - to read it from stdin", required: false },
    arg: { type: "string", description: "key=value argument (repeatable); the value parses as JSON when it can, else is a string", valueHint: "k=v" },
    background: { type: "boolean", description: "Check permissions and approval here, then run the call as a background task: prints {\"task_id\",\"status\":\"queued\"} at once (see `toolgate tasks`)" },
    "write-scope": { type: "string", description: "With --background: a name only one active task may hold at a time (a second is refused task.write_scope_busy)", valueHint: "S" },
    profile: { type: "string", description: "Narrow the catalog for this call to a profile's tools (scout, writer, full, or one from the config's profiles): a tool it leaves out is refused profile.excluded", valueHint: "NAME" },
    "dry-run": { type: "boolean", description: "Say what the call would need (each permission, the approval) and whether it would run now, as JSON: nothing is asked, run or journaled; flags lists what to add" },
    timeout: { type: "string", description: "This call's deadline in seconds, in place of the tool's own, never past what the tool allows (an MCP server's timeout_secs, an authored tool's timeout_secs, bash.max_timeout_secs, 300 s for other built-ins; a longer one is cut to that, with a note); when it passes, the call's process tree is ended", valueHint: "SECS" },
  },
});

export async function runCall(ctx: RunContext): Promise<number> {
  const s = scanFlags(ctx.argv, { arg: { kind: "multi" }, background: { kind: "bool" }, "write-scope": { kind: "string" }, profile: { kind: "string" }, timeout: { kind: "string" }, "dry-run": { kind: "bool" } });
  const timeout = parseTimeout(str(s, "timeout"));
  const [background, dryRun, quiet, verbose] = [bool(s, "background"), bool(s, "dry-run"), bool(s, "quiet"), bool(s, "verbose")];
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
  if (json === "-" && ctx.via === undefined && !quiet && isTerminal(0)) writeStderr(READING_STDIN);
  const args = await parseCallArgs(json, multi(s, "arg"), ctx.readStdin, ctx.cwd);
  // Someone can be asked only when prompting is on and a controlling terminal exists (a dry run asks
  // nobody). The state is checked before anything starts and opened before the call: a call toolgate
  // cannot journal never runs. The tool limits which servers a catalog-cache miss may start.
  const profileName = str(s, "profile");
  let profile: Profile | undefined;
  const rt = await openRuntime({
    ...bootInput(ctx, s), ...(dryRun ? { interactive: false } : {}), call: tool, warm: !background,
    state: { check: checkState, open: ctx.stateDb ?? openChecked, kept: ctx.stateDb !== undefined },
    // --profile narrows this one call as a served session's profile does (loaded only when asked for).
    afterBoot: async (booted) => void (profileName === undefined || (profile = (await import("./serve-choices.ts")).profileFor(booted, profileName))),
    // Spans, when the environment asks for them: a session's own exporter, else handed to the reaper after the result.
    telemetry: ctx.telemetry ?? (() => telemetryFor(ctx.env, "one-shot", (line) => writeStderr(`${line}\n`))),
  });
  let status: Status | undefined;
  let unjournaled: unknown;
  try {
    // An --approve name that is no tool is a usage error before anything else happens.
    const approved = approvedNames(multi(s, "approve"), rt.booted, undefined, tool);
    await rt.ready(tool, { background, ...(verbose ? { verbose: note } : {}) });
    const signal = cancellation(ctx);
    // On a terminal, a call that runs past a moment shows what it is doing on one updating line.
    status = !background && ctx.via === undefined && isTerminal(2) && !quiet ? await statusFor(tool) : undefined;
    const terminal = await terminalFor(rt, tool, ctx, status);
    const timeoutSecs = boundedTimeout(rt, tool, timeout, quiet);
    const { canPrompt, stateDir, config } = rt.booted;
    const invoked = await rt.call(tool, args, {
      lane, approved, signal, dryRun,
      ask: canPrompt && !dryRun ? approvalPrompter(stateDir, ctx.ask) : undefined,
      operator: (line) => (status?.line.pause(), writeStderr(`${line}\n`), status?.line.resume()),
      unstarted: (e) => {
        throw stateError(config, e, "the call was not run");
      },
      unfinished: (e) => void (unjournaled = e),
      ...(background ? { background: { writeScope: writeScope ?? null } } : {}),
      ...(ctx.via ? { via: ctx.via } : {}),
      ...(terminal ? { peer: terminal.peer } : {}),
      ...(status ? { watch: status.watch, activity: status.activity } : {}),
      ...(profile ? { profile } : {}),
      ...(timeoutSecs === undefined ? {} : { timeoutSecs }),
    });
    terminal?.finish();
    status?.line.stop();
    const unfinished = unjournaled === undefined ? undefined : () => stateError(config, unjournaled, "this call's journal row was not finished; `toolgate log` shows it as indeterminate").message;
    return await render(tool, invoked, { quiet, verbose, unjournaled: unfinished });
  } finally {
    status?.line.stop();
    // The result is out (and journaled): a cold call's children go to a detached reaper, the journal
    // is closed, the spans handed on; a session keeps its own (its pool, its journal, its exporter).
    await rt.close({ handOff: ctx.via === undefined });
  }
}
