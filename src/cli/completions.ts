// `toolgate completions bash|zsh|fish`: a completion script for the shell, drawn from the commands'
// declarations (their flags, the global ones, the actions a command takes). Tool names are not
// embedded: at completion time the script asks `toolgate tools --names`, which reads the catalog
// cache and starts no server. The scripts themselves are in completion-scripts.ts.
import type { ArgDef } from "citty";
import { defineCommand } from "citty";
import { PERM_KINDS } from "../permission/types.ts";
import { usageError } from "../result/result.ts";
import { writeStdout } from "../result/io.ts";
import type { CommandInfo, RunContext } from "./context.ts";
import { scanFlags } from "./flags.ts";
import { SCRIPTS, SHELLS, type CompletionSpec, type Flag } from "./completion-scripts.ts";

export default defineCommand({
  meta: {
    name: "completions",
    description:
      "Print the shell completion script for bash, zsh or fish: commands, each command's flags, and tool names (asked of toolgate tools --names as you type: no server is started)",
  },
  args: {
    shell: { type: "positional", description: "bash, zsh or fish", required: true },
  },
});

/**
 * What a command's first argument may be (`tools`: the catalog's names, at completion time), and
 * after `approvals revoke`, a tool. The commands' own refusals list the same (test/e2e/completions).
 */
export const ACTIONS: Readonly<Record<string, readonly string[] | "tools" | "commands">> = {
  call: "tools",
  tools: "tools",
  help: "commands",
  tasks: ["list", "status", "logs", "cancel", "wait", "prune"],
  session: ["start", "stop", "status"],
  config: ["schema", "import"],
  approvals: ["list", "revoke"],
  completions: SHELLS,
};

export async function runCompletions(ctx: RunContext): Promise<number> {
  const s = scanFlags(ctx.argv, {});
  const [shell, extra] = s.positionals;
  const choices = `the shells are: ${SHELLS.join(", ")} (toolgate completions bash > ~/.local/share/bash-completion/completions/toolgate)`;
  if (shell === undefined) throw usageError("completions needs the shell to complete for", choices);
  if (!(SHELLS as readonly string[]).includes(shell))
    throw usageError(`no completion script for the shell "${shell}"`, choices);
  if (extra !== undefined) throw usageError(`unexpected argument "${extra}"`, "toolgate completions bash|zsh|fish");
  writeStdout(SCRIPTS[shell as (typeof SHELLS)[number]](await specOf(ctx.top!)));
  return 0;
}

/** The commands, their flags and actions, and the global flags (the permission flags spelled out). */
export async function specOf(top: CommandInfo): Promise<CompletionSpec> {
  const subs = Object.entries((await resolve(top.subCommands)) ?? {});
  const commands = [];
  for (const [name, load] of subs) {
    const def = await resolve(load);
    const meta = await resolve(def.meta);
    commands.push({
      name,
      description: firstSentence(meta?.description ?? ""),
      flags: flagsOf(await resolve(def.args)),
      actions: ACTIONS[name] ?? [],
    });
  }
  const permissions: Flag[] = PERM_KINDS.flatMap((k) => [`allow-${k}`, `deny-${k}`]).map((n) => ({
    names: [`--${n}`],
    value: false,
    description: `${n.replace("-", " ")} (=LIST for some)`,
  }));
  const declared = flagsOf(await resolve(top.args));
  const only = (f: Flag) => f.names.includes("--version");
  const globals = [
    ...declared.filter((f) => !only(f) && !f.names.some((n) => /^--(allow|deny)-(read|write|run|net|env)$/.test(n))),
    ...permissions,
    { names: ["--help", "-h"], value: false, description: "Show the help" },
  ];
  return { commands, globals, top: declared.filter(only) };
}

function flagsOf(args: Record<string, ArgDef> | undefined): Flag[] {
  return Object.entries(args ?? {})
    .filter(([, a]) => a.type !== "positional")
    .map(([name, a]) => {
      const alias = (a as { alias?: string | string[] }).alias;
      const aliases = alias === undefined ? [] : Array.isArray(alias) ? alias : [alias];
      const hint = "valueHint" in a ? a.valueHint : undefined;
      return {
        names: [`--${name}`, ...aliases.map((x) => `-${x}`)],
        value: a.type !== "boolean",
        description: firstSentence(a.description ?? ""),
        ...(hint ? { hint } : {}),
      };
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
