// What a command lays out for a person: tables and widths fitted to the output, and the result
// written to stdout. Its human lines on stderr go through src/result/human.ts (note, tell: also
// exported here for the commands that take them from this module).
import { escapeControl } from "../result/escape.ts";
import { isTerminal, writeStdout } from "../result/io.ts";
export { note, tell } from "../result/human.ts";

export function writeOut(text: string): void {
  writeStdout(text.endsWith("\n") ? text : `${text}\n`);
}

/** The width output is laid out for: the terminal's columns when stdout is one, else 100. */
export function outputWidth(ctx: {
  readonly stdoutIsTTY: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
}): number {
  if (!ctx.stdoutIsTTY) return PIPED_WIDTH;
  // A call forwarded by a session (or run in-process) has no terminal of its own here: the caller's COLUMNS, if any.
  const cols = isTerminal(1) ? process.stdout.columns : Number(ctx.env.COLUMNS);
  return Number.isInteger(cols) && cols >= MIN_WIDTH ? cols : PIPED_WIDTH;
}

const PIPED_WIDTH = 100;
const MIN_WIDTH = 20;
/** A column is never cut narrower than this (or its own width, when that is less). */
const MIN_COLUMN = 6;

/** Columns a string takes on a terminal (wide characters count two). */
export const displayWidth = (s: string): number => Bun.stringWidth(s);

/** `s` cut to `width` columns, its end replaced by … when cut. */
export function cut(s: string, width: number): string {
  if (displayWidth(s) <= width) return s;
  let out = "";
  let used = 0;
  for (const ch of s) {
    const w = displayWidth(ch);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return `${out.trimEnd()}…`;
}

const pad = (s: string, width: number) => s + " ".repeat(Math.max(0, width - displayWidth(s)));

/**
 * Pads columns for a plain table (no colours: it may be copied into a bug report); every cell
 * escaped. Wider than `width`, the `flex` column (default the last: a description, a preview)
 * gives way first, then the widest of the others; long cells are cut with ….
 */
export function table(rows: readonly (readonly string[])[], width = Number.POSITIVE_INFINITY, flex?: number): string {
  const safe = rows.map((r) => r.map(escapeControl));
  const widths: number[] = [];
  for (const r of safe)
    r.forEach((c, i) => {
      widths[i] = Math.max(widths[i] ?? 0, displayWidth(c));
    });
  const floor = widths.map((w) => Math.min(w, MIN_COLUMN));
  let excess = widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1) - width;
  const first = flex ?? widths.length - 1;
  if (excess > 0 && widths[first] !== undefined) {
    const give = Math.min(excess, widths[first]! - floor[first]!);
    widths[first]! -= give;
    excess -= give;
  }
  while (excess > 0) {
    let widest = -1;
    widths.forEach((w, i) => {
      if (w > floor[i]! && (widest < 0 || w >= widths[widest]!)) widest = i;
    });
    if (widest < 0) break; // every column at its floor: the lines stay longer
    widths[widest]!--;
    excess--;
  }
  return safe
    .map((r) =>
      r.map((c, i) => (i === r.length - 1 ? cut(c, widths[i]!) : pad(cut(c, widths[i]!), widths[i]!))).join("  "),
    )
    .join("\n");
}
