// How a process-running tool (bash, dev_check, scratch_read) shows a launcher Execution in its
// result: tails clipped to a byte budget measured as the output boundary measures it (compact
// JSON, UTF-8), totals kept, and artifact paths workspace-relative (or omitted when outside).
import type { Execution, StreamReport } from "../../launcher/types.ts";
import { relativeInside } from "../files/workspace.ts";

export interface StreamView {
  /** The end of the stream (NUL shown as U+2400, so one NUL byte does not reject the whole result). */
  readonly tail: string;
  readonly bytes: number;
  readonly chars: number;
  /** The tail is not the whole stream. */
  readonly truncated: boolean;
  /** The stream's artifact holds only its first bytes (the cap), then a note saying so. */
  readonly artifactCut?: true;
}

/** Bytes one code point costs inside a JSON string. */
function cost(cp: number): number {
  if (cp === 0x22 || cp === 0x5c) return 2;
  if (cp < 0x20) return cp === 0x0a || cp === 0x0d || cp === 0x09 || cp === 0x08 || cp === 0x0c ? 2 : 6;
  if (cp < 0x80) return 1;
  if (cp < 0x800) return 2;
  if (cp >= 0xd800 && cp <= 0xdfff) return 6; // a lone surrogate is escaped
  return cp < 0x10000 ? 3 : 4;
}

/** The longest end of `text` whose JSON-serialized UTF-8 size (without quotes) is at most `maxBytes`. */
export function clipEnd(text: string, maxBytes: number): { text: string; cut: boolean } {
  let used = 0;
  let i = text.length;
  while (i > 0) {
    let start = i - 1;
    const low = text.charCodeAt(start);
    if (low >= 0xdc00 && low <= 0xdfff && start > 0) {
      const high = text.charCodeAt(start - 1);
      if (high >= 0xd800 && high <= 0xdbff) start--;
    }
    const c = cost(text.codePointAt(start)!);
    if (used + c > maxBytes) break;
    used += c;
    i = start;
  }
  return { text: text.slice(i), cut: i > 0 };
}

export function streamView(r: StreamReport, maxBytes: number): StreamView {
  const { text, cut } = clipEnd(r.tail.replaceAll("\0", "\u2400"), maxBytes);
  return {
    tail: text,
    bytes: r.bytes,
    chars: r.chars,
    truncated: r.truncated || cut,
    ...(r.artifactCut ? { artifactCut: true as const } : {}),
  };
}

/** Where the full streams are, relative to the workspace; null for none or outside the workspace. */
export function artifactsView(workspace: string, e: Execution): { stdout: string | null; stderr: string | null } {
  const rel = (p: string | null) => (p === null ? null : relativeInside(workspace, p));
  return { stdout: rel(e.artifacts.stdout), stderr: rel(e.artifacts.stderr) };
}

/** How a run ended, in words, for messages: "exit code 2", "timeout after 5 s", "signal SIGKILL". */
export function endedText(e: Execution, deadlineMs: number): string {
  switch (e.ended) {
    case "exited":
      return `exit code ${e.code}`;
    case "signalled":
      return `signal ${e.signal}`;
    case "timeout":
      return `timeout after ${deadlineMs / 1000} s`;
    case "cancelled":
      return "cancelled";
  }
}
