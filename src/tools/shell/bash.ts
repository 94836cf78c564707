// bash: one command line through `/bin/bash -lc`, exactly as written, in the workspace, through
// the launcher under the boot's sandbox mode. A non-zero exit is the refusal `bash.exit` carrying
// the code and both tails: a reading, not a crash. The approval is the other half of containment.
import { defineTool } from "../../catalog/declare.ts";
import type { Execution } from "../../launcher/types.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";
import { artifactsView, endedText, streamView } from "./run-report.ts";
import description from "./bash.txt" with { type: "text" };

/** Each tail's share of the boundary's 64 KiB (serialized bytes), leaving room for the rest. */
const TAIL_BYTES = 24_000;
/** The config's defaults (config/resolve.ts), for contexts built without a config. */
const DEFAULT_TIMEOUT_SECS = 120;
const DEFAULT_MAX_TIMEOUT_SECS = 600;

export default defineTool({
  name: "bash",
  description: description.trimEnd(),
  input: (type) =>
    type({
      "+": "reject",
      command: "string > 0",
      "timeout_secs?": "number > 0",
    }),
  effect: "irreversible",
  approval: "required",
  ownDeadline: true,
  timeLimit: (config) => ({
    secs: config?.bash?.max_timeout_secs ?? DEFAULT_MAX_TIMEOUT_SECS,
    setBy: "bash.max_timeout_secs",
  }),
  needs: () => ok([{ kind: "run", value: "bash" }]),
  handler: async (args, ctx) => {
    const conf = ctx.config?.bash ?? {};
    const max = conf.max_timeout_secs ?? DEFAULT_MAX_TIMEOUT_SECS;
    // The caller's --timeout (already at most max) replaces the default; the arguments' own, if shorter, still holds.
    const asked = args.timeout_secs ?? ctx.timeoutSecs ?? Math.min(conf.timeout_secs ?? DEFAULT_TIMEOUT_SECS, max);
    const secs = ctx.timeoutSecs === undefined ? asked : Math.min(asked, ctx.timeoutSecs);
    if (secs > max) {
      return refuse(
        "bash.timeout_above_max",
        `timeout_secs ${secs} is above the maximum of ${max} s; ask for less, or raise bash.max_timeout_secs ` +
          `in toolgate.json`,
        {
          timeout_secs: secs,
          max_timeout_secs: max,
        },
      );
    }
    const deadlineMs = Math.round(secs * 1000);
    // A login shell, with HOME an empty folder of its own: the user's dotfiles neither run nor print.
    const run = await ctx.processes.run({
      argv: ["/bin/bash", "-lc", args.command],
      cwd: ctx.workspace,
      deadlineMs,
      sandboxed: true,
      home: true,
      ...commandWord(args.command),
    });
    if (!run.ok) return run;
    const e = run.value;
    const report = {
      exitCode: e.ended === "exited" ? e.code : null,
      ended: e.ended,
      ...(e.ended === "signalled" ? { signal: e.signal } : {}),
      durationMs: Math.round(e.durationMs),
      sandbox: ctx.processes.sandboxMode,
      stdout: streamView(e.stdout, TAIL_BYTES),
      stderr: streamView(e.stderr, TAIL_BYTES),
      artifacts: artifactsView(ctx.workspace, e),
      audit: auditView(e),
      // Processes the command left running were ended with it; say so rather than hide it.
      ...(e.leftovers > 0 ? { leftovers: e.leftovers } : {}),
      ...(e.survivors.length > 0 ? { survivors: e.survivors.length } : {}),
    };
    // Which knob made the deadline: the caller's --timeout when it cut the arguments' or the default.
    const knob =
      ctx.timeoutSecs !== undefined && secs === ctx.timeoutSecs && secs !== args.timeout_secs
        ? "--timeout"
        : "timeout_secs";
    return outcome(e.ended === "exited" && e.code === 0, report, endedText(e, deadlineMs), max, knob);
  },
});

/** Words bash runs itself: no executable stands behind them. */
const SHELL_WORDS = new Set([
  "if",
  "for",
  "while",
  "until",
  "case",
  "function",
  "cd",
  "echo",
  "printf",
  "exit",
  "export",
  "set",
  "source",
  ".",
  "test",
  "[",
  "true",
  "false",
  "read",
  "eval",
  "exec",
  "time",
  "!",
  "{",
  "(",
  "pwd",
  "type",
  "command",
  "builtin",
  "local",
  "return",
  "shift",
  "trap",
  "unset",
  "wait",
  "kill",
]);

/** The command line's first word, best effort: none for a shell word, an assignment, a quoted or expanded word. */
function commandWord(command: string): { auditName?: string } {
  const first = /^\s*([A-Za-z0-9_.+/-]+)(?=\s|$|;|&|\|)/.exec(command)?.[1];
  return first === undefined || SHELL_WORDS.has(first) ? {} : { auditName: first };
}

/**
 * The audit view: the working folder, the environment's names (never values), the shell's real
 * path, and the executable the first word names on the child's PATH (a path: against the working
 * folder), null when there is none. Paths here are toolgate's own (the workspace, the host's programs).
 */
function auditView(e: Execution) {
  return {
    cwd: e.audit?.cwd ?? null,
    envKeys: e.audit?.envKeys ?? [],
    executable: e.audit?.program ?? null,
    commandExecutable: e.audit?.named ?? null,
  };
}

function outcome(passed: boolean, report: { ended: string }, how: string, max: number, knob: string): Outcome<unknown> {
  if (passed) return ok(report);
  switch (report.ended) {
    case "exited":
      return refuse("bash.exit", `the command ended with ${how}; its stdout and stderr tails are in details`, report);
    case "timeout":
      return refuse(
        "bash.timeout",
        `the command was stopped with its whole process tree: ${how}; pass a larger ${knob} (at most ${max})`,
        report,
      );
    case "signalled":
      return refuse("bash.signalled", `the command was killed by ${how}`, report);
    default:
      return refuse(
        "bash.cancelled",
        "the call was cancelled; the command was stopped with its whole process tree",
        report,
      );
  }
}
