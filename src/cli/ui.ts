// Human-facing output: always stderr (stdout carries only results), via consola, created lazily.
// Every human line is escaped (src/result/escape.ts): untrusted text never drives the terminal.
import type { ConsolaInstance } from "consola";
import { escapeControl } from "../result/escape.ts";
import { writeStderr, writeStdout } from "../result/io.ts";

let instance: ConsolaInstance | undefined;
/** stderr as consola sees it: the process's, or a forwarded call's in a session. */
const errStream = { write: (text: string) => void writeStderr(text) } as unknown as NodeJS.WriteStream;

/** Loaded on first use: a successful call prints nothing for humans and never pays for it. */
async function ui(): Promise<ConsolaInstance> {
  if (instance) return instance;
  const { createConsola } = await import("consola/basic");
  return (instance = createConsola({ stdout: errStream, stderr: errStream, formatOptions: { date: false } }));
}

/** One message for the operator (stderr), its control characters made visible. */
export async function tell(kind: "error" | "warn" | "success", text: string): Promise<void> {
  (await ui())[kind](escapeControl(text));
}

/** One plain `toolgate: ...` line on stderr, escaped. */
export function note(text: string): void {
  writeStderr(`toolgate: ${escapeControl(text)}\n`);
}

export function writeOut(text: string): void {
  writeStdout(text.endsWith("\n") ? text : `${text}\n`);
}

/** Pads columns for a plain table (no colours: it may be copied into a bug report); every cell escaped. */
export function table(rows: readonly (readonly string[])[]): string {
  const safe = rows.map((r) => r.map(escapeControl));
  const widths: number[] = [];
  for (const r of safe) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return safe.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")).join("\n");
}
