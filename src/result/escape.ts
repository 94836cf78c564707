// Untrusted text on a person's terminal: every human-facing line (stderr messages, the prompts,
// the `log`, `tools` and `config` tables) goes through escapeControl, and JSON meant for a
// terminal through jsonForTerminal. Neither a tool, a path nor a server's text can move the
// cursor, retitle the window (OSC 0), write the clipboard (OSC 52) or reorder what is read.

// What is escaped: C0 controls (newline and tab included: untrusted text cannot start a line of
// its own), DEL, C1 controls (U+0080-U+009F: 8-bit CSI and OSC), and the bidi and line-separator
// characters (ALM, LRM, RLM, LS, PS, embeddings, overrides, isolates) that make text read
// differently from what it is. Other invisible characters (zero-width, soft hyphen) change nothing
// a terminal does and are left to the output boundary.
const CONTROL = /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** Makes control characters visible, Deno style: ESC becomes `\u{1b}`. */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

// JSON.stringify escapes U+0000-U+001F only; DEL, C1 and the bidi characters stay raw.
const JSON_RAW = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** JSON text with no raw control or bidi character: the same value, safe to print on a terminal. */
export function jsonForTerminal(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space);
  return text === undefined ? "" : text.replace(JSON_RAW, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * A child's output for a terminal (`tasks logs`): its lines stay lines (newline and tab are kept,
 * CRLF read as a newline), every other control and bidi character is escaped as escapeControl does.
 */
export function escapeOutput(text: string): string {
  return text
    .replaceAll("\r\n", "\n")
    .replace(CONTROL, (c) => (c === "\n" || c === "\t" ? c : `\\u{${c.codePointAt(0)!.toString(16)}}`));
}
