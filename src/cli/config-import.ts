// `toolgate config import FILE [--force]`: another client's MCP config file read into a
// toolgate.json (--config FILE, else ./toolgate.json), never over an existing one without --force.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { readClientFile } from "../config/client-file.ts";
import { jsonForTerminal } from "../result/escape.ts";
import { bootError, usageError } from "../result/result.ts";
import type { RunContext } from "./context.ts";
import { bool, str, type Scanned } from "./flags.ts";
import { writeOut } from "./ui.ts";

export function runImport(ctx: RunContext, s: Scanned, file: string | undefined): number {
  if (file === undefined)
    throw usageError(
      "config import needs the file to read",
      "toolgate config import .vscode/mcp.json [--config OUT] [--force]",
    );
  const source = resolve(ctx.cwd, file);
  let text: string;
  try {
    text = readFileSync(source, "utf8");
  } catch (e) {
    throw usageError(`cannot read ${source} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const read = readClientFile(source, text, parseJsonc);
  if (!read.ok) throw bootError(`${source}: ${read.problem}`);
  const r = { value: read.imported };
  const target = resolve(ctx.cwd, str(s, "config") ?? "toolgate.json");
  if (existsSync(target) && !bool(s, "force")) {
    throw usageError(
      `${target} exists; nothing was written`,
      "pass --force to replace it, or --config OTHER.json to write elsewhere",
    );
  }
  writeFileSync(target, `${JSON.stringify({ mcpServers: r.value.servers }, null, 2)}\n`);
  const took = Object.fromEntries(Object.entries(r.value.servers).map(([n, e]) => [n, Object.keys(e)]));
  if (bool(s, "json") || !ctx.stdoutIsTTY) {
    writeOut(
      jsonForTerminal(
        { wrote: target, from: source, format: r.value.format, took, skipped: r.value.skipped, notes: r.value.notes },
        2,
      ),
    );
    return 0;
  }
  const lines = [`wrote ${target} from ${source} (${r.value.format}):`];
  for (const [n, keys] of Object.entries(took)) lines.push(`  took ${n}: ${keys.join(", ")}`);
  for (const k of r.value.skipped) lines.push(`  skipped ${k.key}: ${k.why}`);
  for (const n of r.value.notes) lines.push(`  note ${n}`);
  writeOut(lines.join("\n"));
  return 0;
}

/** JSON with comments and trailing commas (VS Code's files have them): plain JSON first. */
function parseJsonc(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const { parse, printParseErrorCode } = require("jsonc-parser/lib/esm/main.js") as typeof import("jsonc-parser");
    const errors: import("jsonc-parser").ParseError[] = [];
    const doc = parse(text, errors, { allowTrailingComma: true });
    if (errors.length) throw new Error(`${printParseErrorCode(errors[0]!.error)} at offset ${errors[0]!.offset}`);
    return doc;
  }
}
