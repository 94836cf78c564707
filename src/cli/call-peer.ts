// `call`'s side of an MCP call: a server's elicitation is asked as a form on /dev/tty when
// someone can be asked (else declined, and stderr says so); its progress is one updating line on
// stderr when stderr is a terminal (nothing otherwise); sampling is refused (no model here).
import type { CallScope } from "../catalog/declare.ts";
import type { Progress } from "../mcp/peer.ts";
import { openTtyLines } from "../permission/prompt.ts";
import { escapeControl } from "../result/escape.ts";
import { askForm, fieldsOf } from "./elicit-form.ts";
import type { StatusLine } from "./status-line.ts";

export interface TerminalPeer {
  readonly peer: NonNullable<CallScope["peer"]>;
  /** Clears the progress line, if one is shown (before the result and the operator's lines). */
  finish(): void;
}

const CLEAR = "\r\x1b[2K";

export function progressText(tool: string, p: Progress): string {
  const of =
    p.total !== undefined && p.total > 0
      ? `${p.progress}/${p.total} (${Math.min(100, Math.round((p.progress / p.total) * 100))}%)`
      : String(p.progress);
  return escapeControl(`⏳ ${tool}: ${of}${p.message ? ` ${p.message}` : ""}`).slice(0, 200);
}

/** A server's progress as the status line's detail: `3/10 (30%) indexing`. */
export function progressDetail(p: Progress): string {
  return progressText("", p).replace(/^⏳ : /, "");
}

/**
 * `ask`: someone can be asked at the terminal (a prompt is allowed and /dev/tty opens);
 * `progress`: stderr is a terminal; `status`: the call's status line, which then shows the progress;
 * `err` writes to stderr; `whyNot`: why nobody is asked, when not.
 */
export function terminalPeer(opts: {
  ask: boolean;
  progress: boolean;
  status?: StatusLine;
  err: (text: string) => void;
  ttyPath?: string;
  whyNot?: string;
}): TerminalPeer {
  let shown = false;
  const clear = () => {
    if (shown) opts.err(CLEAR);
    shown = false;
    opts.status?.pause();
  };
  return {
    finish: clear,
    peer: (who) => (
      opts.status?.begin(who.tool),
      {
        ...(opts.ask
          ? {
              elicit: async (form) => {
                clear();
                // A schema a terminal form cannot ask is declined, saying why.
                const fields = fieldsOf(form.requestedSchema);
                if (!fields.ok) throw new Error(fields.why);
                const tty = openTtyLines(opts.ttyPath);
                if (!tty) throw new Error("no terminal could be opened to ask on");
                try {
                  return askForm(tty, form, who);
                } finally {
                  tty.close();
                  opts.status?.resume();
                }
              },
            }
          : {}),
        elicited: (outcome, why) => {
          // An answer at the form was shown there; only a decline nobody chose is explained.
          if (outcome !== "decline" || (opts.ask && why === undefined)) return;
          clear();
          const reason = why ?? opts.whyNot ?? "nobody can be asked here (no terminal, CI, or --no-prompt)";
          opts.err(
            `toolgate: MCP server "${escapeControl(who.server)}" asked for input during ` +
              `${escapeControl(who.tool)} (elicitation); declined: ${escapeControl(reason)}\n`,
          );
          opts.status?.resume();
        },
        ...(opts.status
          ? { progress: (p) => (opts.status!.detail(progressDetail(p)), opts.status!.show()) }
          : opts.progress
            ? {
                progress: (p) => {
                  opts.err(`${CLEAR}${progressText(who.tool, p)}`);
                  shown = true;
                },
              }
            : {}),
      }
    ),
  };
}
