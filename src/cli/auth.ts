// `toolgate auth SERVER [--logout]`: authorizes toolgate at a remote MCP server over OAuth (the
// URL on stderr, a browser when there is one, a loopback redirect), or forgets what is stored.
// Tokens live in the user's state folder (auth/), never in the workspace; call, tools and serve
// then use and refresh them. The server's network grants are the same flags as for a call.
import { writeStderr } from "../result/io.ts";
import { defineCommand } from "citty";
import { bootError, CliError, ExitCode, usageError } from "../result/result.ts";
import { didYouMean, nearest } from "../result/suggest.ts";
import { boot } from "../runtime/boot.ts";
import type { RemoteSources } from "../servers/sources.ts";
import type { RemoteSpec } from "../servers/specs.ts";
import { bootInput, type RunContext } from "./context.ts";
import { bool, scanFlags, type Scanned } from "./flags.ts";
import { note, writeOut } from "./ui.ts";
import { escapeControl } from "../result/escape.ts";
import { NO_USER_STATE, stateInWorkspace, stateInWorkspaceHint } from "../trust/paths.ts";

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

const WAIT_MS = 300_000;

export async function runAuth(ctx: RunContext): Promise<number> {
  const s = scanFlags(ctx.argv, { logout: { kind: "bool" } });
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
        `no server "${name}" in mcpServers${names.length ? ` (there are: ${names.join(", ")})` : ""}${didYouMean(nearest(name, names))}`,
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
    if (bool(s, "logout")) return logout(remote, spec, s);
    // The server's own needs first (its host, each ${NAME}): nothing is sent before they pass.
    for (const need of spec.needs) {
      const r = await remote.checkStart(spec, need);
      if (!r.ok) throw new CliError(ExitCode.denied, r.message, r.flag ? `add ${r.flag}` : undefined);
    }
    const { authorize } = await import("../servers/authorize.ts");
    const { openBrowser } = await import("../launcher/browser.ts");
    let done;
    try {
      done = await authorize(remote, spec, {
        waitMs: WAIT_MS,
        open: (url) => {
          note(`to authorize toolgate at MCP server "${name}", open this URL in a browser on this machine:`);
          // The URL alone on its line, so it can be copied (or read by a script).
          writeStderr(`${escapeControl(url.href)}\n`);
          if (openBrowser(url.href, ctx.env)) note("(opened in your browser)");
        },
      });
    } catch (e) {
      const flag =
        (e as { details?: { flag?: string } }).details?.flag ??
        (e as { cause?: { details?: { flag?: string } } }).cause?.details?.flag;
      const denied = /permission\.denied|--allow-net=/.test((e as Error).message) || flag !== undefined;
      throw new CliError(
        denied ? ExitCode.denied : ExitCode.failed,
        `cannot authorize MCP server "${name}": ${(e as Error).message}`,
        flag ? `add ${flag}` : undefined,
      );
    }
    const out = { server: name, authorized: true, authorizations: done.authorizations, tools: done.tools };
    if (bool(s, "json") || !ctx.stdoutIsTTY) writeOut(JSON.stringify(out));
    else if (done.authorizations === 0)
      note(
        `MCP server "${name}" answered without asking for authorization (${done.tools} tool${done.tools === 1 ? "" : "s"})`,
      );
    else
      note(
        `MCP server "${name}" is authorized (${done.tools} tool${done.tools === 1 ? "" : "s"}); call, tools and serve use the stored token`,
      );
    return 0;
  } finally {
    await booted.remote?.shutdown();
  }
}

async function logout(remote: RemoteSources, spec: RemoteSpec, s: Scanned): Promise<number> {
  const wiring = await remote.authWiring(spec);
  const had = wiring.provider.forget();
  if (!bool(s, "quiet"))
    note(
      had
        ? `forgot the tokens and client registration of MCP server "${spec.name}"`
        : `nothing was stored for MCP server "${spec.name}"`,
    );
  return 0;
}
