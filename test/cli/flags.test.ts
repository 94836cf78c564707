// Every flag is declared once (a command's citty `args`, and the global ones): the scanner, the help
// and the three completion scripts all read that declaration, so for every command they name the
// same flags. A flag parsed but missing from the help (or a completion script) fails here.
import { describe, expect, test } from "bun:test";
import type { CommandDef } from "citty";
import { specOf } from "../../src/cli/completion-spec.ts";
import { SCRIPTS } from "../../src/cli/completion-scripts.ts";
import { flagTable, scanFlags, TOP_ARGS, type Args } from "../../src/cli/flags.ts";
import { renderHelp } from "../../src/cli/render-help.ts";
import { CliError } from "../../src/result/result.ts";
import { mainDef } from "../../src/main.ts";

const resolve = async <T>(v: T | (() => T | Promise<T>) | Promise<T>): Promise<T> =>
  (typeof v === "function" ? await (v as () => T | Promise<T>)() : await v) as T;

/** Each command's declaration, by name, loaded as the entry point loads it. */
async function commands(): Promise<[string, CommandDef<any>][]> {
  const subs = Object.entries(await resolve(mainDef.subCommands!));
  return Promise.all(
    subs.map(async ([name, load]) => [name, await resolve(load as CommandDef<any>)] as [string, CommandDef<any>]),
  );
}

/** `--allow-read/-write[=LIST]` → --allow-read, --allow-write; `-q, --quiet=<X>` → -q, --quiet. */
function expand(label: string): string[] {
  return label.split(/,\s*/).flatMap((part) => {
    const m = /^(--?[A-Za-z][\w-]*)((?:\/-[\w]+)*)/.exec(part.trim());
    if (!m) return [];
    const prefix = m[1]!.slice(0, m[1]!.lastIndexOf("-"));
    return [
      m[1]!,
      ...m[2]!
        .split("/")
        .filter(Boolean)
        .map((x) => `${prefix}${x}`),
    ];
  });
}

/** The flags a help text names: its OPTIONS rows' labels and the GLOBAL FLAGS paragraph. */
function helpFlags(text: string): string[] {
  const options = text.split("\nOPTIONS\n\n")[1]?.split("\n\n")[0] ?? "";
  const labels = options
    .split("\n")
    .filter((l) => /^ {2}-/.test(l))
    .map((l) => l.trim().split(/\s{2,}/)[0]!);
  const globals =
    text
      .split("\nGLOBAL FLAGS\n\n")[1]
      ?.replace(/\(see toolgate --help\)/, "")
      .replace(/\s+/g, " ") ?? "";
  const globalLabels = globals.split(/,\s/).map((g) => g.trim().split(" ")[0]!);
  return [...labels.flatMap(expand), ...globalLabels.flatMap(expand)];
}

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

describe("one declaration per command", () => {
  test("for every command, the scanner, the help and the completion scripts name the same flags", async () => {
    const spec = await specOf(mainDef);
    const scripts = { bash: SCRIPTS.bash(spec), zsh: SCRIPTS.zsh(spec), fish: SCRIPTS.fish(spec) };
    const all = await commands();
    expect(all.length).toBeGreaterThan(10);
    for (const [name, def] of all) {
      const parsed = sorted(flagTable((await resolve(def.args ?? {})) as Args).keys());
      const help = sorted(helpFlags(await renderHelp(mainDef, def, 1000)));
      const bash = sorted(
        /\n {6}(\S+)\) words='([^']*)' ;;/g
          [Symbol.matchAll](scripts.bash)
          .filter((m) => m[1] === name && m[2]!.startsWith("-"))
          .flatMap((m) => m[2]!.split(" ")),
      );
      const zshOwn =
        [...scripts.zsh.matchAll(/\n {6}\((\S+)\) flags=\((.*)\) ;;(?=\n)/g)].find((m) => m[1] === name)?.[2] ?? "";
      const zshGlobal = /\n {4}flags\+=\((.*)\)\n/.exec(scripts.zsh)![1]!;
      const zsh = sorted(`${zshOwn} ${zshGlobal}`.match(/'(-[^:']+):/g)!.map((x) => x.slice(1, -1)));
      // A flag's line: `complete -c toolgate [-n CONDITION] -s q -l quiet ... -d DESCRIPTION`, for every command or this one.
      const fishLines = scripts.fish
        .split("\n")
        .map((l) => l.split(" -d ")[0]!)
        .filter(
          (l) =>
            l.startsWith("complete -c toolgate") && (!l.includes(" -n ") || l.includes(`'__toolgate_using ${name}'`)),
        );
      const fish = sorted(
        fishLines.flatMap((l) =>
          [...l.matchAll(/ -([sl]) (\S+)/g)].map((m) => (m[1] === "s" ? `-${m[2]}` : `--${m[2]}`)),
        ),
      );
      expect({ name, help, bash, zsh, fish }).toEqual({ name, help: parsed, bash: parsed, zsh: parsed, fish: parsed });
    }
  });

  test("toolgate itself: its help and completions name what it takes before a command", async () => {
    const parsed = sorted(flagTable(TOP_ARGS).keys());
    expect(sorted(helpFlags(await renderHelp(mainDef, mainDef, 1000)))).toEqual(parsed);
    const bash = /\n {6}\*\) words='([^']*)' ;;/.exec(SCRIPTS.bash(await specOf(mainDef)))![1]!.split(" ");
    expect(sorted(bash)).toEqual(parsed);
    expect(parsed).toContain("-V");
  });

  test("the help of a flag the scanner takes from the declaration alone: tasks --state-dir", async () => {
    const tasks = (await commands()).find(([n]) => n === "tasks")![1];
    expect(await renderHelp(mainDef, tasks, 100)).toContain("--state-dir=<DIR>");
  });
});

describe("scanFlags", () => {
  const args = {
    tool: { type: "string", repeat: true },
    last: { type: "string" },
    all: { type: "boolean" },
    id: { type: "positional" },
  } as const satisfies Args;

  test("values, repeats, booleans, aliases, permission flags and positionals, as declared", () => {
    const s = scanFlags(
      ["a", "--tool", "x", "--tool=y", "--last=5", "-q", "--all", "--allow-read=/p", "-A", "--", "--all"],
      args,
    );
    expect(s.flags).toEqual({ tool: ["x", "y"], last: "5", quiet: true, all: true });
    expect(s.positionals).toEqual(["a", "--all"]);
    expect(s.permissions.map((p) => [p.effect, p.kind])).toEqual([
      ["allow", "read"],
      ["allow", "all"],
    ]);
  });

  test.each([
    [["--last", "1", "--last", "2"], "--last was given twice"],
    [["--all=yes"], '--all takes no value (got "yes")'],
    [["--last"], "--last needs a value"],
    [["--allow-all=x"], "--allow-all=x: takes no value"],
    [["--alll"], "unknown flag --alll"],
    [["-x"], "unknown flag -x"],
  ])("%p is a usage error (exit 2): %p", (argv, message) => {
    let caught: unknown;
    try {
      scanFlags(argv, args);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(CliError);
    expect([(caught as CliError).exitCode, (caught as CliError).message]).toEqual([2, message]);
  });

  test("an unknown flag carries the names to suggest from: the command's, the global and the permission flags", () => {
    try {
      scanFlags(["--alll"], args);
      throw new Error("not refused");
    } catch (e) {
      const unknown = (e as CliError).unknown!;
      expect(unknown.name).toBe("alll");
      for (const n of ["all", "tool", "quiet", "allow-net", "deny-env", "allow-all"])
        expect(unknown.among).toContain(n);
    }
  });
});
