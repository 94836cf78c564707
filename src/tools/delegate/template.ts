// The child agent's command line from `delegation.command`, an argv template (never a shell line):
// `{objective}` inside any element becomes the objective text; an element that is exactly `{server}`
// becomes the child server's argv, spliced; `{server_command}` / `{server_args_json}` / `{mcp_config}`
// give the same server as one command, a JSON array of its arguments, or an MCP client config. Pure.

export const PLACEHOLDERS = [
  "{objective}",
  "{server}",
  "{server_command}",
  "{server_args_json}",
  "{mcp_config}",
] as const;

/** The server name the child sees in `{mcp_config}`: its tools arrive as this server's. */
export const CHILD_SERVER_NAME = "toolgate";

export function expandTemplate(command: readonly string[], objective: string, server: readonly string[]): string[] {
  const [cmd, ...args] = server;
  const mcpConfig = JSON.stringify({ mcpServers: { [CHILD_SERVER_NAME]: { command: cmd, args } } });
  const out: string[] = [];
  for (const el of command) {
    if (el === "{server}") {
      out.push(...server);
      continue;
    }
    // One pass over the element: a replacement is never read again (an objective naming "{server}" stays text).
    out.push(
      el.replace(/\{(objective|server_command|server_args_json|mcp_config)\}/g, (_, name: string) =>
        name === "objective"
          ? objective
          : name === "server_command"
            ? cmd!
            : name === "server_args_json"
              ? JSON.stringify(args)
              : mcpConfig,
      ),
    );
  }
  return out;
}

/** Whether the template can hand the child both the objective and the server (else the boot says which is missing). */
export function templateProblem(command: readonly string[]): string | null {
  const all = command.join("\u0000");
  if (!all.includes("{objective}")) return "names no {objective}: the child would not know its task";
  if (!["{server}", "{server_command}", "{mcp_config}"].some((p) => all.includes(p)))
    return "names none of {server}, {server_command}, {mcp_config}: the child could not reach its tools";
  return null;
}
