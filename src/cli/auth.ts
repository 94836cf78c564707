// `toolgate auth SERVER [--logout]`: authorizes toolgate at a remote MCP server over OAuth (the
// URL on stderr, a browser when there is one, a loopback redirect), or forgets what is stored.
// Tokens live in the user's state folder (auth/), never in the workspace; call, tools and serve
// then use and refresh them. The server's network grants are the same flags as for a call.
import { defineCommand } from "citty";
import { bootError, usageError } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import { boot } from "../runtime/boot.ts";
import { NO_USER_STATE, stateInWorkspace, stateInWorkspaceHint } from "../trust/paths.ts";
import { authorized, authorizeAt, forget } from "./auth-flow.ts";
import { bootInput, type RunContext } from "./context.ts";
import { bool } from "./flags.ts";
import { writeOut } from "./ui.ts";

export default defineCommand({
  meta: {
    name: "auth",
    description: "Authorize toolgate at a remote MCP server over OAuth (tokens kept in your state folder), or --logout",
  },
  args: {
    server: {
      type: "positional",
      description: "The server's name in mcpServers (an HTTP or SSE server)",
      required: true,
    },
    logout: { type: "boolean", description: "Forget the server's tokens and client registration (nothing is sent)" },
  },
});

export async function runAuth(ctx: RunContext): Promise<number> {
  const s = ctx.flags;
  const [name, extra] = s.positionals;
  if (name === undefined || extra !== undefined)
    throw usageError(
      name === undefined ? "name the server to authorize" : `unexpected argument "${extra}"`,
      "toolgate auth SERVER [--logout]",
    );
  // No server is started to list it: `auth` connects only to the one it names.
  const booted = await boot({ ...bootInput(ctx, s), call: "auth" });
  try {
    const remote = booted.remote;
    const spec = remote?.spec(name);
    if (!remote || !spec || spec.kind !== "mcp") {
      const names = Object.keys(booted.config.values.mcpServers ?? {});
      throw usageError(
        `no server "${name}" in ` +
          `mcpServers${names.length ? ` (there are: ${names.join(", ")})` : ""}${didYouMean(nearest(name, names))}`,
        "name a server of your config, e.g. toolgate auth github",
      );
    }
    if (spec.transport.kind !== "http")
      throw usageError(
        `MCP server "${name}" runs over stdio: OAuth is for remote (HTTP or SSE) servers`,
        "give the server its credentials in env instead",
      );
    const user = booted.userState;
    if (user === null)
      throw bootError(`tokens need a user state folder: ${NO_USER_STATE}`, "set HOME or XDG_STATE_HOME");
    if (stateInWorkspace(user, booted.workspace))
      throw bootError(
        `your state folder ${user} lies inside the workspace, where tokens must never be kept`,
        stateInWorkspaceHint,
      );
    if (bool(s, "logout")) return forget(spec.name, (await remote.authWiring(spec)).provider.forget());
    const done = await authorizeAt(name, remote, spec, ctx.env);
    const out = { server: name, authorized: true, authorizations: done.authorizations, tools: done.tools };
    if (bool(s, "json") || !ctx.stdoutIsTTY) writeOut(JSON.stringify(out));
    else authorized(name, done);
    return 0;
  } finally {
    await booted.remote?.shutdown();
  }
}
