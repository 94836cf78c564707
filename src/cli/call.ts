// `toolgate call TOOL [ARGS_JSON | @FILE | - | --arg k=v ...] [--timeout SECS]`: parse, open the
// runtime, run one call, print exactly the result JSON on stdout, exit with the outcome's code.
import { isTerminal, writeStderr } from "../result/io.ts";
import { openRuntime } from "../runtime/runtime.ts";
import type { Profile } from "../runtime/invoke.ts";
import { telemetryFor } from "../telemetry/telemetry.ts";
import { approvedNames } from "./approve-flag.ts";
import { approvalPrompter } from "./approval-prompt.ts";
import { callRequest } from "./call-args.ts";
import { boundedTimeout, cancellation, render, statusFor, terminalFor, type Status } from "./call-view.ts";
import { bootInput, type RunContext } from "./context.ts";
import { multi, str } from "./flags.ts";
import { checkState, openChecked, stateError } from "./state.ts";
import { note } from "./ui.ts";

export { callCommand as default } from "./call-args.ts";

export async function runCall(ctx: RunContext): Promise<number> {
  const { s, tool, args, lane, timeout, background, writeScope, dryRun, quiet, verbose } = await callRequest(ctx);
  // Someone can be asked only when prompting is on and a controlling terminal exists (a dry run asks
  // nobody). The state is checked before anything starts and opened before the call: a call toolgate
  // cannot journal never runs. The tool limits which servers a catalog-cache miss may start.
  const profileName = str(s, "profile");
  let profile: Profile | undefined;
  const rt = await openRuntime({
    ...bootInput(ctx, s),
    ...(dryRun ? { interactive: false } : {}),
    call: tool,
    warm: !background,
    state: { check: checkState, open: ctx.stateDb ?? openChecked, kept: ctx.stateDb !== undefined },
    // --profile narrows this one call as a served session's profile does (loaded only when asked for).
    afterBoot: async (booted) =>
      void (
        profileName === undefined || (profile = (await import("./serve-choices.ts")).profileFor(booted, profileName))
      ),
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
    status =
      !background && ctx.via === undefined && isTerminal(2) && ctx.env.TERM !== "dumb" && !quiet
        ? await statusFor(tool)
        : undefined;
    const terminal = await terminalFor(rt, tool, ctx, status);
    const timeoutSecs = boundedTimeout(rt, tool, timeout, quiet);
    const { canPrompt, stateDir, config } = rt.booted;
    const invoked = await rt.call(tool, args, {
      lane,
      approved,
      signal,
      dryRun,
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
    const unfinished =
      unjournaled === undefined
        ? undefined
        : () =>
            stateError(
              config,
              unjournaled,
              "this call's journal row was not finished; `toolgate log` shows it as indeterminate",
            ).message;
    return await render(tool, invoked, { quiet, verbose, unjournaled: unfinished });
  } finally {
    status?.line.stop();
    // The result is out (and journaled): a cold call's children go to a detached reaper, the journal
    // is closed, the spans handed on; a session keeps its own (its pool, its journal, its exporter).
    await rt.close({ handOff: ctx.via === undefined });
  }
}
