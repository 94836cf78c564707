// Human-facing output: always stderr (stdout carries only results), via consola, created lazily.
import type { ConsolaInstance } from "consola";

let instance: ConsolaInstance | undefined;

/** Loaded on first use: a successful call prints nothing for humans and never pays for it. */
export async function ui(): Promise<ConsolaInstance> {
  if (instance) return instance;
  const { createConsola } = await import("consola/basic");
  return (instance = createConsola({ stdout: process.stderr, stderr: process.stderr, formatOptions: { date: false } }));
}

export function writeOut(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** Pads columns for a plain table (no colours: it may be copied into a bug report). */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ")).join("\n");
}
