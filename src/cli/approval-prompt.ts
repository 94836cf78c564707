// The approval prompt on the controlling terminal: the tool, its effect and digest, and the
// WHOLE arguments (a command's tail is what runs). Shown whole up to a bound (permission/prompt-block.ts);
// beyond, the head is shown, the whole is written to a 0600 file in the state folder, and the
// prompt says plainly that it is partial, with the file's path and sha256.
import type { ApprovalAnswer, ApprovalRequest } from "../approval/approval.ts";
import { askQuestion, question, type Asker } from "../permission/prompt.ts";
import { argumentsBlock } from "../permission/prompt-block.ts";
import { escapeControl } from "../result/escape.ts";

/**
 * At this process's /dev/tty, or through `ask` (a session's client, at its own terminal): then
 * yes or no for this call only; "A" (remembered) is neither offered nor taken over the socket.
 */
export function approvalPrompter(
  stateDir: string,
  ask?: Asker,
): (req: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer> {
  const settle = (line: string | null): ApprovalAnswer =>
    line === "A" && !ask ? "A" : line === "y" || line === "Y" ? "y" : "n";
  const choices = ask
    ? "[y/n] (y = yes, this call; n = no)"
    : "[y/n/A] (y = yes, this call; n = no; A = always, for this digest)";
  return (req) => {
    const text =
      `┏ ⚠️  toolgate: ${escapeControl(req.tool)} needs approval.\n` +
      `┠─ Effect: ${escapeControl(req.effect)}. Digest: ${req.digest.slice(0, 12)}.\n` +
      argumentsBlock(req.args, stateDir) +
      `┠─ Run again with --approve ${escapeControl(req.tool)} to bypass this prompt.\n` +
      `┗ Approve? ${choices} > `;
    const q = question(text, ask ? ["y", "Y", "n", "N"] : ["y", "Y", "n", "N", "A"], {
      retry: `┗ Unrecognized option. Approve? ${ask ? "[y/n]" : "[y/n/A]"} > `,
      outcome: (a) =>
        a === "y" || a === "Y" || (a === "A" && !ask)
          ? `✅ Approved ${escapeControl(req.tool)}.\n`
          : `❌ Not approved: ${escapeControl(req.tool)}.\n`,
    });
    return ask ? ask(q).then(settle) : settle(askQuestion("/dev/tty", q));
  };
}
