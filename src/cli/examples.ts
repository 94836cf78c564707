// The EXAMPLES section of each command's help (help.ts): command lines a user can paste. Each one
// runs, in order, in a small workspace (a README.md, an untrusted toolgate.json that only narrows;
// auth's also declares an HTTP server `docs`): test/e2e/help.test.ts runs them all with bash.
export interface Example {
  /** What it does, one short sentence. */
  readonly what: string;
  readonly cmd: string;
}

/** By command name; `toolgate` is the top-level help. */
export const EXAMPLES: Readonly<Record<string, readonly Example[]>> = {
  toolgate: [
    { what: "The catalog: every tool, its origin, effect and approval policy", cmd: "toolgate tools" },
    {
      what: "Run one tool: read the first lines of README.md",
      cmd: `toolgate call file_read '{"path":"README.md","limit":5}' --allow-read --approve file_read`,
    },
    { what: "A command's flags and examples", cmd: "toolgate help call" },
  ],
  call: [
    {
      what: "Read the first five lines of README.md",
      cmd: `toolgate call file_read '{"path":"README.md","limit":5}' --allow-read --approve file_read`,
    },
    {
      what: "The arguments as JSON on stdin",
      cmd: `echo '{"pattern":"toolgate"}' | toolgate call file_search - --allow-read --approve file_search`,
    },
    {
      what: "The arguments as key=value pairs (a value parses as JSON when it can)",
      cmd: "toolgate call file_find --arg pattern='*.md' --arg limit=10 --allow-read --approve file_find",
    },
    {
      what: "The arguments from a file, relative to the current folder",
      cmd:
        `echo '{"path":"README.md"}' > args.json && toolgate call file_read @args.json --allow-read ` +
        `--approve file_read`,
    },
    {
      what: "A deadline of 30 s for this call, in place of the tool's own (bash: 120 s, at most 600)",
      cmd: `toolgate call bash '{"command":"ls"}' --timeout 30 --allow-run=bash --approve bash`,
    },
    {
      what: "A command as a background task: prints its id at once (see toolgate tasks)",
      cmd: `toolgate call bash '{"command":"sleep 1"}' --background --allow-run=bash --approve bash`,
    },
  ],
  tools: [
    { what: "The catalog (a table on a terminal, NDJSON when piped)", cmd: "toolgate tools" },
    { what: "One tool's whole descriptor and input JSON Schema", cmd: "toolgate tools file_read" },
    { what: "Only what the scout profile offers", cmd: "toolgate tools --profile scout" },
    {
      what: "The file tools that only read (a quoted glob, an effect class)",
      cmd: "toolgate tools 'file_*' --effect read",
    },
    {
      what: "The built-ins' names alone, one a line (no server is started)",
      cmd: "toolgate tools --source builtin --names",
    },
    { what: "The names `toolgate serve` gives the tools", cmd: "toolgate tools --served" },
  ],
  config: [
    { what: "Every effective value and where it came from", cmd: "toolgate config" },
    { what: "The JSON Schema of toolgate.json, for an editor", cmd: "toolgate config schema > toolgate.schema.json" },
  ],
  log: [
    { what: "The last 20 actions", cmd: "toolgate log --last 20" },
    { what: "What failed or was denied in the last hour", cmd: "toolgate log --status failed,denied --since 1h" },
    {
      what: "The file tools' calls as NDJSON (--follow keeps printing new ones until Ctrl-C)",
      cmd: "toolgate log --tool 'file_*' --json",
    },
    { what: "What tools created in the world (Most chats and messages)", cmd: "toolgate log --resources" },
  ],
  trust: [
    { what: "Trust the toolgate.json toolgate would use here, as it is now", cmd: "toolgate trust" },
    { what: "Every trusted file, and whether it changed since", cmd: "toolgate trust --list" },
    { what: "The digest CI passes as TOOLGATE_TRUST (records nothing)", cmd: "toolgate trust --print" },
    { what: "Forget the trust", cmd: "toolgate trust --revoke" },
  ],
  serve: [
    {
      what: "An MCP server on stdio, read-only tools approved (a client starts it; it ends when its stdin closes)",
      cmd: "toolgate serve --profile scout --allow-read --approve file_read,file_find,file_search",
    },
  ],
  session: [
    {
      what: "Keep this workspace warm: call and tools are forwarded to it",
      cmd: "toolgate session start --idle-secs 300",
    },
    { what: "Whether one runs, and what it holds", cmd: "toolgate session status" },
    { what: "Stop it (calls in flight finish first)", cmd: "toolgate session stop" },
  ],
  tasks: [
    { what: "This lane's background tasks", cmd: "toolgate tasks list" },
    { what: "Remove the records of tasks that ended over a week ago", cmd: "toolgate tasks prune --older-than 7d" },
  ],
  auth: [
    {
      what: "Forget what is stored for the HTTP server docs of mcpServers (nothing is sent)",
      cmd: "toolgate auth docs --logout",
    },
  ],
  approvals: [
    {
      what: "This workspace's remembered approvals, and whether each still matches its tool",
      cmd: "toolgate approvals list",
    },
    {
      what: "Forget the remembered approvals of file_read here: it is asked again",
      cmd: "toolgate approvals revoke file_read",
    },
    { what: "Every workspace's", cmd: "toolgate approvals list --all" },
  ],
  doctor: [
    { what: "What this machine gives toolgate, a line a check, each problem with its fix", cmd: "toolgate doctor" },
    {
      what: "Start and list the configured MCP servers too (a config cannot grant their start)",
      cmd: "toolgate doctor --allow-run",
    },
    {
      what: "The checks as JSON (exit 1 when something the configuration needs is missing)",
      cmd: "toolgate doctor --json",
    },
  ],
  completions: [
    {
      what: "bash: completion in this shell (put the line in ~/.bashrc to keep it)",
      cmd: "source <(toolgate completions bash)",
    },
    {
      what: "zsh: a completion function in a folder of $fpath (add fpath=(~/.zfunc $fpath) before compinit)",
      cmd: "mkdir -p ~/.zfunc && toolgate completions zsh > ~/.zfunc/_toolgate",
    },
    {
      what: "fish: where fish looks for completions",
      cmd:
        "mkdir -p ~/.config/fish/completions && toolgate completions fish > " +
        "~/.config/fish/completions/toolgate.fish",
    },
  ],
  version: [
    { what: "The version, the commit and the target", cmd: "toolgate version" },
    { what: "The same as JSON", cmd: "toolgate version --json" },
  ],
  help: [
    { what: "The commands and the global flags", cmd: "toolgate help" },
    { what: "One command's flags and examples (the same as toolgate log --help)", cmd: "toolgate help log" },
  ],
};
