// A prompt's view of long untrusted text (a tool's arguments, a server's command line): shown
// whole up to SHOW_CHARS, escaped line by line; beyond, the head, and the whole written to a 0600
// file in the state folder whose path and sha256 the prompt shows, saying plainly it is partial.
// The file is new (O_CREAT|O_EXCL|O_NOFOLLOW) under a random name in toolgate's own `prompts/`:
// nothing the arguments decide names it, so no link planted there ahead of time is written through.
import { sha256Hex } from "../result/sha256.ts";
import { newStateFile } from "../fs/state-folder.ts";
import { escapeControl } from "../result/escape.ts";

/** What the prompt shows whole: generous, and still one screenful or two. */
export const SHOW_CHARS = 4_000;

/** Escaped line by line: the JSON's own newlines stay; nothing in a value can act on the terminal. */
const visible = (text: string) => text.split("\n").map(escapeControl).join("\n");

/** The arguments as the prompt shows them; writes the overflow file when they do not fit. */
export function argumentsBlock(args: string, stateDir: string, label = "Arguments"): string {
  const shown = visible(args);
  if (shown.length <= SHOW_CHARS) return `┠─ ${label}:\n${indent(shown)}\n`;
  const sha = sha256Hex(args);
  const file = newStateFile(stateDir, "prompts", "args-", ".json", args);
  let cut = SHOW_CHARS;
  if (/[\ud800-\udbff]/.test(shown.charAt(cut - 1))) cut--;
  return (
    `┠─ ${label} (PARTIAL: the first ${SHOW_CHARS.toLocaleString("en")} of ` +
    `${shown.length.toLocaleString("en")} characters; read the whole before answering):\n` +
    `${indent(shown.slice(0, cut))}\n` +
    `┠─ … the preview is partial. The whole ${label.toLowerCase()}: ${escapeControl(file)}\n` +
    `┠─   sha256 ${sha}\n`
  );
}

const indent = (text: string) =>
  text
    .split("\n")
    .map((l) => `┃   ${l}`)
    .join("\n");
