// What a `call` shows its caller, beside the result: the status line of a call that runs past a
// moment, the terminal as an MCP server's peer (forms, progress), the --timeout note, the
// cancellation by Ctrl-C or TERM, and the operator lines after the result.
import { isTerminal, writeStderr } from "../result/io.ts";
import { jsonForTerminal } from "../result/escape.ts";
import { exitCodeFor } from "../result/exit.ts";
import { Interrupted, type Envelope } from "../result/result.ts";
import type { LaunchWatch } from "../launcher/types.ts";
import { serverOf } from "../catalog/origin.ts";
import type { Runtime } from "../runtime/runtime.ts";
import { boundTimeout } from "../runtime/timeout.ts";
import { note, tell, writeOut } from "./ui.ts";
import type { RunContext } from "./context.ts";

/**
 * Ctrl-C or TERM cancels the call: the launcher ends the child's tree, and the result (cancelled,
 * or interrupted for a remote effect, naming the signal) is still printed and journaled; the exit
 * code is 130 or 143. In a session, the client's Ctrl-C arrives as ctx.signal (its reason names the signal).
 */
export function cancellation(ctx: RunContext): AbortSignal {
  const cancel = new AbortController();
  if (ctx.signal) ctx.signal.addEventListener("abort", () => cancel.abort(ctx.signal!.reason), { once: true });
  else {
    process.once("SIGINT", () => cancel.abort(new Interrupted("SIGINT")));
    process.once("SIGTERM", () => cancel.abort(new Interrupted("SIGTERM")));
  }
  return cancel.signal;
}

/** The status line of a call on a terminal, and the hooks that feed it: loaded only there. */
export async function statusFor(tool: string) {
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
export type Status = Awaited<ReturnType<typeof statusFor>>;

/**
 * An MCP tool's server may ask for input or report progress while it runs: the terminal answers (loaded only for
 * them).
 */
export async function terminalFor(rt: Runtime, tool: string, ctx: RunContext, status: Status | undefined) {
  const entry = rt.booted.catalog.entries.get(tool);
  if (!entry || serverOf(entry.origin) === undefined) return undefined;
  return (await import("./call-peer.ts")).terminalPeer({
    // A session has no terminal of its own: a forwarded call's form is declined, saying how to be asked.
    ask: rt.booted.canPrompt && ctx.via === undefined,
    ...(ctx.via === undefined
      ? {}
      : { whyNot: "a call forwarded to a session cannot show a form (run it with --no-session to be asked)" }),
    progress: ctx.via === undefined && isTerminal(2) && ctx.env.TERM !== "dumb",
    ...(status ? { status: status.line } : {}),
    err: writeStderr,
  });
}

/** --timeout, bounded by what the tool allows; a longer one is cut to that, and the operator told. */
export function boundedTimeout(
  rt: Runtime,
  tool: string,
  asked: number | undefined,
  quiet: boolean,
): number | undefined {
  const entry = rt.booted.catalog.entries.get(tool);
  if (asked === undefined || entry === undefined) return undefined;
  const { secs, limit } = boundTimeout(entry, asked, rt.booted.config.values);
  if (limit && !quiet)
    note(
      `--timeout ${asked}: ${tool} may run at most ${limit.secs} s (${limit.setBy}); the call's deadline is ` +
        `${limit.secs} s`,
    );
  return secs;
}

/**
 * The result on stdout (a background call's task id), then the operator view on stderr: a row
 * left unfinished, failures always unless --quiet, successes with --verbose. The exit code.
 */
export async function render(
  tool: string,
  r: { envelope: Envelope; note?: string; operator?: string; task?: string },
  how: { quiet: boolean; verbose: boolean; unjournaled: (() => string) | undefined },
): Promise<number> {
  if (r.task !== undefined) {
    writeOut(jsonForTerminal({ task_id: r.task, status: "queued" }));
    return 0;
  }
  const envelope = r.envelope;
  writeOut(jsonForTerminal(envelope));
  if (how.unjournaled !== undefined) await tell("warn", how.unjournaled());
  if (envelope.status !== "success" && !how.quiet) {
    // A rejection's line names the tool, the rule and where (the envelope itself says only that).
    await tell(
      "error",
      r.note ?? `${envelope.error_code}${"message" in envelope && envelope.message ? `: ${envelope.message}` : ""}`,
    );
    if (r.operator !== undefined) note(r.operator);
  } else if (envelope.status === "success" && how.verbose) {
    await tell("success", `${tool}: success`);
  }
  return exitCodeFor(envelope);
}
