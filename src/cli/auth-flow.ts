// The OAuth flow `toolgate auth SERVER` runs: the server's own needs checked first (its host,
// each ${NAME}: nothing is sent before they pass), then the URL on stderr (a browser when there is
// one) and the loopback redirect; and what it tells the person at the end.
import { CliError, ExitCode } from "../result/result.ts";
import { note, plain } from "../result/human.ts";
import type { RemoteSources } from "../servers/sources.ts";
import type { RemoteSpec } from "../servers/specs.ts";

const WAIT_MS = 300_000;

/** Authorizes toolgate at `spec` (an HTTP MCP server): how many authorizations it took, and the tools it lists. */
export async function authorizeAt(
  name: string,
  remote: RemoteSources,
  spec: RemoteSpec,
  env: Readonly<Record<string, string | undefined>>,
) {
  // The server's own needs first (its host, each ${NAME}): nothing is sent before they pass.
  for (const need of spec.needs) {
    const r = await remote.checkStart(spec, need);
    if (!r.ok) throw new CliError(ExitCode.denied, r.message, r.flag ? `add ${r.flag}` : undefined);
  }
  const { authorize } = await import("../servers/authorize.ts");
  const { openBrowser } = await import("../launcher/browser.ts");
  let done: Awaited<ReturnType<typeof authorize>>;
  try {
    done = await authorize(remote, spec, {
      waitMs: WAIT_MS,
      open: (url) => {
        note(`to authorize toolgate at MCP server "${name}", open this URL in a browser on this machine:`);
        // The URL alone on its line, so it can be copied (or read by a script).
        plain(url.href);
        if (openBrowser(url.href, env)) note("(opened in your browser)");
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
  return done;
}

/** The line a person reads once the server answered. */
export function authorized(name: string, done: { authorizations: number; tools: number }): void {
  const tools = `${done.tools} tool${done.tools === 1 ? "" : "s"}`;
  if (done.authorizations === 0) note(`MCP server "${name}" answered without asking for authorization (${tools})`);
  else note(`MCP server "${name}" is authorized (${tools}); call, tools and serve use the stored token`);
}

/** --logout: the tokens and client registration forgotten (`had`: there were some). */
export function forget(name: string, had: boolean): number {
  note(
    had
      ? `forgot the tokens and client registration of MCP server "${name}"`
      : `nothing was stored for MCP server "${name}"`,
  );
  return 0;
}
