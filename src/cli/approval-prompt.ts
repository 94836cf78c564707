// The approval prompt on the controlling terminal: the tool, its effect and digest, and the
// WHOLE arguments (a command's tail is what runs). Up to SHOW_CHARS they are shown in full;
// beyond, the head is shown, the whole is written to a 0600 file in the state folder, and the
// prompt says plainly that it is partial, with the file's path and sha256.
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ApprovalAnswer, ApprovalRequest } from "../approval/approval.ts";
import { askTty } from "../permission/prompt.ts";
import { escapeControl } from "../result/escape.ts";

/** What the prompt shows whole: generous, and still one screenful or two. */
export const SHOW_CHARS = 4_000;

/** Escaped line by line: the JSON's own newlines stay; nothing in a value can act on the terminal. */
const visible = (text: string) => text.split("\n").map(escapeControl).join("\n");

/** The arguments as the prompt shows them; writes the overflow file when they do not fit. */
export function argumentsBlock(args: string, stateDir: string, label = "Arguments"): string {
  const shown = visible(args);
  if (shown.length <= SHOW_CHARS) return `┠─ ${label}:\n${indent(shown)}\n`;
  const sha = createHash("sha256").update(args).digest("hex");
  const dir = join(stateDir, "prompts");
  const file = join(dir, `args-${sha.slice(0, 16)}.json`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(file, args, { mode: 0o600 });
  let cut = SHOW_CHARS;
  if (/[\ud800-\udbff]/.test(shown.charAt(cut - 1))) cut--;
  return (
    `┠─ ${label} (PARTIAL: the first ${SHOW_CHARS.toLocaleString("en")} of ${shown.length.toLocaleString("en")} characters; read the whole before answering):\n` +
    `${indent(shown.slice(0, cut))}\n` +
    `┠─ … the preview is partial. The whole ${label.toLowerCase()}: ${escapeControl(file)}\n` +
    `┠─   sha256 ${sha}\n`
  );
}

const indent = (text: string) => text.split("\n").map((l) => `┃   ${l}`).join("\n");

export function approvalPrompter(stateDir: string): (req: ApprovalRequest) => ApprovalAnswer {
  return (req) => {
    const text =
      `┏ ⚠️  toolgate: ${escapeControl(req.tool)} needs approval.\n` +
      `┠─ Effect: ${escapeControl(req.effect)}. Digest: ${req.digest.slice(0, 12)}.\n` +
      argumentsBlock(req.args, stateDir) +
      `┠─ Run again with --approve ${escapeControl(req.tool)} to bypass this prompt.\n` +
      `┗ Approve? [y/n/A] (y = yes, this call; n = no; A = always, for this digest) > `;
    const line = askTty("/dev/tty", text, ["y", "Y", "n", "N", "A"], {
      retry: `┗ Unrecognized option. Approve? [y/n/A] > `,
      outcome: (a) => (a === "y" || a === "Y" || a === "A" ? `✅ Approved ${escapeControl(req.tool)}.\n` : `❌ Not approved: ${escapeControl(req.tool)}.\n`),
    });
    return line === "A" ? "A" : line === "y" || line === "Y" ? "y" : "n";
  };
}
