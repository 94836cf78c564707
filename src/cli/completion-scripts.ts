// The completion scripts `toolgate completions` prints, one renderer per shell, from the commands'
// flags and actions (completions.ts). Each finds the command among the words typed (a flag that
// takes a value skips it), then offers commands, flags, a command's actions, or tool names, which
// it asks of the same toolgate (`tools --names`: the catalog cache, no server started).
export const SHELLS = ["bash", "zsh", "fish"] as const;

export interface Flag {
  /** `--name` first, then its aliases (`-q`). */
  readonly names: readonly string[];
  /** Takes the next word as its value. */
  readonly value: boolean;
  readonly description: string;
  /** FILE or DIR: the shell offers files or folders for the value. */
  readonly hint?: string;
}

export interface CommandSpec {
  readonly name: string;
  readonly description: string;
  readonly flags: readonly Flag[];
  /** The first argument: a list, the catalog's tool names, or the command names. */
  readonly actions: readonly string[] | "tools" | "commands";
}

export interface CompletionSpec {
  readonly commands: readonly CommandSpec[];
  /** The flags every command takes. */
  readonly globals: readonly Flag[];
  /** Those toolgate takes before any command (--version). */
  readonly top: readonly Flag[];
}

/** Alternatives for a `case` pattern (one that matches nothing when there are none). */
const alt = (names: readonly string[], quote: (s: string) => string = (s) => s) =>
  names.length ? names.map(quote).join("|") : "__toolgate_none__";

const allFlags = (spec: CompletionSpec) => [...spec.globals, ...spec.commands.flatMap((c) => c.flags)];
/** Every flag that takes a value, in any command: the word after it is not an argument. */
const valueFlags = (spec: CompletionSpec) => [
  ...new Set(
    allFlags(spec)
      .filter((f) => f.value)
      .flatMap((f) => f.names),
  ),
];
const hinted = (spec: CompletionSpec, hint: string) => [
  ...new Set(
    allFlags(spec)
      .filter((f) => f.hint === hint)
      .flatMap((f) => f.names),
  ),
];
const words = (c: CommandSpec, spec: CompletionSpec): string | null =>
  c.actions === "tools"
    ? null
    : c.actions === "commands"
      ? spec.commands.map((x) => x.name).join(" ")
      : c.actions.join(" ");
/** Single-quoted for sh and zsh. */
const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
/** Single-quoted for fish (\\ and \' are its only escapes there). */
const fq = (s: string) => `'${s.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;

function bash(spec: CompletionSpec): string {
  const flagsOf = (fs: readonly Flag[]) => fs.flatMap((f) => f.names).join(" ");
  const globals = flagsOf(spec.globals);
  const firsts = spec.commands.map((c) => {
    const w = words(c, spec);
    const tools = `$("\${COMP_WORDS[0]}" tools --names 2>/dev/null)`;
    if (c.name === "approvals")
      return (
        `      approvals) if [[ $n -eq 0 ]]; then words=${sq(w!)}; elif [[ $n -eq 1 && "$first" == revoke ]]; ` +
        `then words="${tools}"; fi ;;`
      );
    if (w === null) return `      ${c.name}) [[ $n -eq 0 ]] && words="${tools}" ;;`;
    return w ? `      ${c.name}) [[ $n -eq 0 ]] && words=${sq(w)} ;;` : "";
  });
  return `# bash completion for toolgate: source <(toolgate completions bash), or save it as
# ~/.local/share/bash-completion/completions/toolgate. Tool names come from toolgate tools --names.
_toolgate() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local cmd="" first="" n=0 i w words=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      ${alt(valueFlags(spec))}) i=$((i + 1)) ;;
      -*) ;;
      *) if [[ -z "$cmd" ]]; then cmd="$w"; else [[ $n -eq 0 ]] && first="$w"; n=$((n + 1)); fi ;;
    esac
  done
  case "$prev" in
    ${alt(hinted(spec, "FILE"))}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    ${alt(hinted(spec, "DIR"))}) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    ${alt(valueFlags(spec))}) COMPREPLY=(); return ;;
  esac
  if [[ "$cur" == -* ]]; then
    case "$cmd" in
${spec.commands.map((c) => `      ${c.name}) words=${sq(`${flagsOf(c.flags)} ${globals}`.trim())} ;;`).join("\n")}
      *) words=${sq(`${globals} ${flagsOf(spec.top)}`)} ;;
    esac
  else
    case "$cmd" in
      "") words=${sq(spec.commands.map((c) => c.name).join(" "))} ;;
${firsts.filter(Boolean).join("\n")}
    esac
  fi
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _toolgate toolgate
`;
}

function zsh(spec: CompletionSpec): string {
  const described = (fs: readonly Flag[]) =>
    fs.flatMap((f) => f.names.map((n) => sq(`${n}:${f.description}`))).join(" ");
  const tools = `\${(f)"$(\${words[1]} tools --names 2>/dev/null)"}`;
  const firsts = spec.commands.map((c) => {
    const w = words(c, spec);
    if (c.name === "approvals")
      return (
        `    (approvals) if (( n == 0 )); then compadd -- ${w}; elif (( n == 1 )) && [[ $first == revoke ]]; ` +
        `then compadd -- ${tools}; fi ;;`
      );
    if (w === null) return `    (${c.name}) (( n == 0 )) && compadd -- ${tools} ;;`;
    return w ? `    (${c.name}) (( n == 0 )) && compadd -- ${w} ;;` : "";
  });
  return `#compdef toolgate
# zsh completion for toolgate: save it as _toolgate in a folder of $fpath, or
# source <(toolgate completions zsh) after compinit. Tool names come from toolgate tools --names.
_toolgate() {
  local cur=\${words[CURRENT]} cmd="" first="" n=0 i w
  local -a flags commands
  for (( i = 2; i < CURRENT; i++ )); do
    w=\${words[i]}
    case $w in
      (${alt(valueFlags(spec))}) (( i++ )) ;;
      (-*) ;;
      (*) if [[ -z $cmd ]]; then cmd=$w; else (( n == 0 )) && first=$w; (( n += 1 )); fi ;;
    esac
  done
  case \${words[CURRENT-1]} in
    (${alt(hinted(spec, "FILE"))}) _files; return ;;
    (${alt(hinted(spec, "DIR"))}) _files -/; return ;;
    (${alt(valueFlags(spec))}) return ;;
  esac
  if [[ $cur == -* ]]; then
    case $cmd in
${spec.commands.map((c) => `      (${c.name}) flags=(${described(c.flags)}) ;;`).join("\n")}
      ('') flags=(${described(spec.top)}) ;;
    esac
    flags+=(${described(spec.globals)})
    _describe -t flags flag flags
    return
  fi
  case $cmd in
    ('') commands=(${spec.commands.map((c) => sq(`${c.name}:${c.description}`)).join(" ")}); _describe -t commands command commands ;;
${firsts.filter(Boolean).join("\n")}
  esac
}
if [[ \${funcstack[1]} == _toolgate ]]; then _toolgate "$@"; else compdef _toolgate toolgate; fi
`;
}

function fish(spec: CompletionSpec): string {
  const flag = (f: Flag, when: string) => {
    const long = f.names.filter((n) => n.startsWith("--")).map((n) => `-l ${n.slice(2)}`);
    const short = f.names.filter((n) => /^-[^-]$/.test(n)).map((n) => `-s ${n.slice(1)}`);
    const value = !f.value
      ? ""
      : f.hint === "FILE"
        ? " -r -F"
        : f.hint === "DIR"
          ? " -x -a '(__fish_complete_directories)'"
          : " -x";
    return (
      `complete -c toolgate${when ? ` -n ${fq(when)}` : ""} ${[...short, ...long].join(" ")}${value} -d ` +
      `${fq(f.description)}`
    );
  };
  const args = spec.commands.flatMap((c) => {
    const w = words(c, spec);
    const list = w === null ? "(__toolgate_tools)" : w;
    const out = w === "" ? [] : [`complete -c toolgate -n ${fq(`__toolgate_arg ${c.name} 0`)} -a ${fq(list)}`];
    if (c.name === "approvals")
      out.push(`complete -c toolgate -n ${fq("__toolgate_arg approvals 1 revoke")} -a '(__toolgate_tools)'`);
    return out;
  });
  return `# fish completion for toolgate: toolgate completions fish > ~/.config/fish/completions/toolgate.fish
# Tool names come from toolgate tools --names.
function __toolgate_state --description 'the command typed, how many arguments it has, and its first'
    set -l cmd -
    set -l first -
    set -l n 0
    set -l skip 0
    for w in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        switch $w
            case ${valueFlags(spec).length ? valueFlags(spec).map(fq).join(" ") : "__toolgate_none__"}
                set skip 1
            case '-*'
            case '*'
                if test $cmd = -
                    set cmd $w
                else
                    test $n = 0; and set first $w
                    set n (math $n + 1)
                end
        end
    end
    printf '%s\\n' $cmd $n $first
end
function __toolgate_using
    set -l s (__toolgate_state)
    test "$s[1]" = "$argv[1]"
end
function __toolgate_arg --description 'the command is argv[1], with argv[2] arguments so far (the first one argv[3])'
    set -l s (__toolgate_state)
    test "$s[1]" = "$argv[1]"; and test "$s[2]" = "$argv[2]"; and begin; test (count $argv) -lt 3; or test "$s[3]" = "$argv[3]"; end
end
function __toolgate_tools
    set -l words (commandline -opc)
    $words[1] tools --names 2>/dev/null
end
complete -c toolgate -f
${spec.commands.map((c) => `complete -c toolgate -n '__toolgate_using -' -a ${c.name} -d ${fq(c.description)}`).join("\n")}
${spec.globals.map((f) => flag(f, "")).join("\n")}
${spec.top.map((f) => flag(f, "__toolgate_using -")).join("\n")}
${spec.commands.flatMap((c) => c.flags.map((f) => flag(f, `__toolgate_using ${c.name}`))).join("\n")}
${args.join("\n")}
`;
}

export const SCRIPTS: Readonly<Record<(typeof SHELLS)[number], (spec: CompletionSpec) => string>> = { bash, zsh, fish };
