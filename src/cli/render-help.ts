// Help text drawn from a command's citty declaration (meta, args, subcommands) and its examples
// (examples.ts), wrapped to the output's width (the terminal's, else 100): what `toolgate help` and
// every --help print, and the wrapping other commands' reports use.
import type { CommandInfo } from "./context.ts";
import type { ArgDef } from "citty";
import { isTerminal, writeStdout } from "../result/io.ts";
import { PERM_KINDS } from "../permission/types.ts";
import { EXAMPLES } from "./examples.ts";
import { GLOBAL_ARGS, type Arg, type Args } from "./flags.ts";
import { cut, displayWidth, outputWidth } from "./ui.ts";

/** `--allow-read/-write/-run/-net/-env`: the flags a permission family's declaration (`allow-read`) stands for. */
const familyOf = (name: string) => `--${name.split("-")[0]}-${PERM_KINDS.join("/-")}`;

/** The flags every command takes, in one paragraph (toolgate --help describes each). */
const globalsLine = (): string =>
  Object.entries(GLOBAL_ARGS as Args)
    .map(([name, a]) => {
      const alias = (a as { alias?: string }).alias;
      if (a.permission && a.type !== "boolean") return `${familyOf(name)}[=LIST]`;
      const flag = `${alias ? `-${alias}, ` : ""}--${name}`;
      return a.type === "boolean" ? flag : `${flag} ${a.valueHint ?? "VALUE"}`;
    })
    .join(", ");

/** Prints `def`'s help (toolgate's own when `def` is the top command) to stdout. */
export async function printHelp(
  top: CommandInfo,
  def: CommandInfo,
  env: Readonly<Record<string, string | undefined>>,
): Promise<void> {
  const tty = isTerminal(1);
  writeStdout(`${await renderHelp(top, def, outputWidth({ stdoutIsTTY: tty, env }), tty)}\n`);
}

export async function renderHelp(top: CommandInfo, def: CommandInfo, width: number, styled = false): Promise<string> {
  const meta = await resolve(def.meta);
  const topMeta = await resolve(top.meta);
  const isTop = def === top;
  const name = isTop ? topMeta.name : `${topMeta.name} ${meta.name}`;
  const head = (h: string) => (styled ? `\u001b[1m${h}\u001b[22m` : h);
  const out: string[] = [...wrap(`${meta.description} (${name} v${topMeta.version})`, width), ""];
  const args = Object.entries((await resolve(def.args)) ?? {}) as [string, ArgDef][];
  const positionals = args.filter(([, a]) => a.type === "positional");
  const flags = args.filter(([, a]) => a.type !== "positional");
  const usage = [
    name,
    ...(args.length ? ["[OPTIONS]"] : []),
    ...positionals.map(([n, a]) => (a.required === false ? `[${n.toUpperCase()}]` : `<${n.toUpperCase()}>`)),
  ];
  const subs = def.subCommands ? Object.entries(await resolve(def.subCommands)) : [];
  if (subs.length) usage.push("<COMMAND>");
  out.push(...wrap(`${head("USAGE")} ${usage.join(" ")}`, width, 6), "");
  if (positionals.length)
    out.push(
      head("ARGUMENTS"),
      "",
      ...columns(
        positionals.map(([n, a]) => [n.toUpperCase(), a.description ?? ""]),
        width,
      ),
      "",
    );
  if (flags.length)
    out.push(
      head("OPTIONS"),
      "",
      ...columns(
        flags.map(([n, a]) => [flagLabel(n, a), a.description ?? ""]),
        width,
      ),
      "",
    );
  if (subs.length) {
    const rows: [string, string][] = [];
    for (const [n, sub] of subs)
      rows.push([n, (await resolve((await resolve(sub as CommandInfo)).meta))?.description ?? ""]);
    out.push(head("COMMANDS"), "", ...columns(rows, width), "");
  }
  const examples = EXAMPLES[isTop ? "toolgate" : meta.name!] ?? [];
  if (examples.length) {
    out.push(head("EXAMPLES"), "");
    for (const e of examples) out.push(...wrap(`# ${e.what}`, width, 4, 2), ...shellLines(e.cmd, width, 2), "");
  }
  if (isTop)
    out.push(
      ...wrap(`Run toolgate help COMMAND (or toolgate COMMAND --help) for a command's flags and examples.`, width),
    );
  else out.push(head("GLOBAL FLAGS"), "", ...wrap(`${globalsLine()} (see toolgate --help)`, width, 2, 2));
  return out.join("\n");
}

async function resolve<T>(v: T | (() => T | Promise<T>) | Promise<T> | undefined): Promise<T> {
  return (typeof v === "function" ? await (v as () => T | Promise<T>)() : await v) as T;
}

/** `-q, --quiet`, `--config=<FILE>` (citty's notation: a string flag shows its value). */
function flagLabel(name: string, a: ArgDef): string {
  const alias = (a as { alias?: string | string[] }).alias;
  const aliases = alias === undefined ? [] : Array.isArray(alias) ? alias : [alias];
  const hint =
    a.type === "boolean" ? "" : `=<${"valueHint" in a && a.valueHint ? a.valueHint : name.replaceAll("-", "_")}>`;
  // A permission family is one row: --allow-read/-write/-run/-net/-env[=<LIST>].
  if ((a as Arg).permission && a.type !== "boolean") return `${familyOf(name)}[${hint}]`;
  return [...aliases.map((x) => `-${x}`), `--${name}`].join(", ") + hint;
}

/**
 * Two columns: labels, then descriptions wrapped beside them. A label wider than the label column
 * (a third of the width at most) gets its description on the lines below, as does every row when
 * the description column would be narrower than 24.
 */
function columns(rows: readonly (readonly [string, string])[], width: number): string[] {
  const labelWidth = Math.min(Math.max(...rows.map(([l]) => displayWidth(l))), Math.max(12, Math.floor(width / 3)));
  const at = 2 + labelWidth + 2;
  const below = width - at < 24;
  const out: string[] = [];
  for (const [label, text] of rows) {
    if (below || displayWidth(label) > labelWidth) {
      out.push(`  ${label}`, ...wrap(text, width, 6, 6));
      continue;
    }
    const lines = wrap(text, width - at);
    out.push(
      `  ${label}${" ".repeat(labelWidth - displayWidth(label) + 2)}${lines[0] ?? ""}`,
      ...lines.slice(1).map((l) => `${" ".repeat(at)}${l}`),
    );
  }
  return out;
}

/** `text` in lines of at most `width` columns (the first indented `first`, the others `rest`), broken between words. */
export function wrap(text: string, width: number, rest = 0, first = 0): string[] {
  const lines: string[] = [];
  let line = " ".repeat(first);
  let empty = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const room = width - displayWidth(line) - (empty ? 0 : 1);
    if (displayWidth(word) <= room) {
      line += (empty ? "" : " ") + word;
      empty = false;
      continue;
    }
    if (!empty) lines.push(line);
    line = " ".repeat(rest);
    // A word longer than a whole line (a URL) is cut into pieces that fit.
    let w = word;
    while (displayWidth(w) > width - rest && width - rest > 1) {
      const piece = cut(w, width - rest).slice(0, -1);
      lines.push(line + piece);
      w = w.slice(piece.length);
    }
    line += w;
    empty = false;
  }
  if (!empty || lines.length === 0) lines.push(line);
  return lines;
}

/**
 * A command line in lines that fit, continued with ` \` between shell words (quotes kept whole),
 * so it still pastes as one command; a word longer than a line stays whole.
 */
export function shellLines(cmd: string, width: number, indent: number): string[] {
  const words = cmd.match(/(?:[^\s'"]+|'[^']*'|"(?:[^"\\]|\\.)*")+/g) ?? [];
  const lines: string[] = [];
  let line = " ".repeat(indent);
  for (const word of words) {
    const next = line.trim() === "" ? line + word : `${line} ${word}`;
    if (displayWidth(next) + 2 <= width || line.trim() === "") line = next;
    else {
      lines.push(`${line} \\`);
      line = `${" ".repeat(indent + 4)}${word}`;
    }
  }
  lines.push(line);
  return lines;
}
