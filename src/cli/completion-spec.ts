// What the completion scripts complete, drawn from the declarations: each command with its flags
// (a permission family spelled out member by member) and its actions, the global flags, and what
// toolgate takes before a command (--version).
import type { CommandInfo } from "./context.ts";
import { PERM_KINDS } from "../permission/types.ts";
import type { CompletionSpec, Flag } from "./completion-scripts.ts";
import type { Args } from "./flags.ts";

/** The commands, their flags and actions, and the global flags (the permission flags spelled out). */
export async function specOf(top: CommandInfo): Promise<CompletionSpec> {
  const subs = Object.entries((await resolve(top.subCommands)) ?? {});
  const commands = [];
  for (const [name, load] of subs) {
    const def = await resolve(load as CommandInfo);
    const meta = await resolve(def.meta);
    commands.push({
      name,
      description: firstSentence(meta?.description ?? ""),
      flags: flagsOf(await resolve(def.args)),
      // What its first argument may be, as its declaration says (after `approvals revoke`, a tool: the scripts know).
      actions:
        Object.values(((await resolve(def.args)) ?? {}) as Args).find((a) => a.type === "positional")?.complete ?? [],
    });
  }
  const declared = flagsOf(await resolve(top.args));
  const only = (f: Flag) => f.names.includes("--version");
  const globals = declared.filter((f) => !only(f));
  return { commands, globals, top: declared.filter(only) };
}

/** The flags of a declaration; a permission family (`allow-read` for --allow-*) spelled out member by member. */
function flagsOf(args: Args | undefined): Flag[] {
  return Object.entries(args ?? {})
    .filter(([, a]) => a.type !== "positional")
    .flatMap(([name, a]): Flag[] => {
      if (a.permission && a.type !== "boolean") {
        const effect = name.split("-")[0]!;
        return PERM_KINDS.map((k) => ({
          names: [`--${effect}-${k}`],
          value: false,
          description: `${effect} ${k} (=LIST for some)`,
        }));
      }
      const alias = (a as { alias?: string | string[] }).alias;
      const aliases = alias === undefined ? [] : Array.isArray(alias) ? alias : [alias];
      const hint = "valueHint" in a ? a.valueHint : undefined;
      return [
        {
          names: [`--${name}`, ...aliases.map((x) => `-${x}`)],
          value: a.type !== "boolean",
          description: firstSentence(a.description ?? ""),
          ...(hint ? { hint } : {}),
        },
      ];
    });
}

async function resolve<T>(v: T | (() => T | Promise<T>) | Promise<T> | undefined): Promise<T> {
  return (typeof v === "function" ? await (v as () => T | Promise<T>)() : await v) as T;
}

/** A description cut at its first sentence or clause, for a completion menu. */
const firstSentence = (s: string) => {
  const cut = s.search(/[.;:]\s| \(|$/);
  const text = s.slice(0, cut).trim();
  return text.length > 70 ? `${text.slice(0, 69)}…` : text;
};
