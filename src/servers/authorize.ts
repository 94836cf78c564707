// `toolgate auth SERVER`'s flow: connect as a call would; where the server answers 401 (or 403 for
// a wider scope) the SDK discovers its authorization server and registers toolgate (or uses the
// configured client), and the authorization URL goes to the user; the loopback redirect brings
// the code, which is exchanged for tokens; then the connection is tried again. Bounded attempts.
import { randomBytes } from "node:crypto";
import { StreamRedactor, redactText } from "../boundary/redact.ts";
import { connectTarget } from "../mcp/connect.ts";
import { VERSION } from "../version.ts";
import type { AuthWiring } from "./auth.ts";
import type { RemoteSources } from "./sources.ts";
import type { RemoteSpec } from "./specs.ts";

/** How many authorizations one `toolgate auth` asks for at most (a server that never accepts one is not looped on). */
export const MAX_AUTHORIZATIONS = 3;

export interface AuthorizeIo {
  /** Shows the authorization URL (stderr) and opens a browser when there is one. */
  open(url: URL): void;
  /** How long to wait for the browser's redirect. */
  readonly waitMs: number;
}

export type Authorized = { readonly tools: number; readonly authorizations: number };

export async function authorize(remote: RemoteSources, spec: RemoteSpec, io: AuthorizeIo): Promise<Authorized> {
  if (spec.transport.kind !== "http") throw new Error(`MCP server "${spec.name}" runs over stdio: it has no OAuth`);
  const { listen } = await import("../auth/loopback.ts");
  const { auth } = await import("@modelcontextprotocol/sdk/client/auth.js");
  const state = randomBytes(16).toString("base64url");
  const loopback = listen(state);
  try {
    let opened = 0;
    const open = (u: URL) => {
      if (opened >= MAX_AUTHORIZATIONS)
        throw new Error(
          `MCP server "${spec.name}" still refuses after ${MAX_AUTHORIZATIONS} authorizations; toolgate stops asking`,
        );
      opened++;
      io.open(u);
    };
    const wiring = await remote.authWiring(spec, { redirectUrl: loopback.redirectUrl, state, open });
    const serverUrl = wiring.target.kind === "http" ? wiring.target.url : "";
    for (let handled = 0; ; ) {
      try {
        const tools = await probe(spec, wiring, remote.secretsOf(spec));
        // A server that lists without a token but refused a call for a scope: authorize for it now.
        const wanted = wiring.provider.wantedScope;
        if (handled > 0 || wanted === undefined) return { tools, authorizations: handled };
        if ((await auth(wiring.provider, { serverUrl, scope: wanted, fetchFn: wiring.fetch })) === "AUTHORIZED")
          return { tools, authorizations: handled };
      } catch (e) {
        if (wiring.provider.redirects.length === handled) throw e;
      }
      const code = await waitFor(loopback.code, io.waitMs);
      handled = wiring.provider.redirects.length;
      loopback.next();
      const r = await auth(wiring.provider, { serverUrl, authorizationCode: code, fetchFn: wiring.fetch });
      if (r !== "AUTHORIZED") throw new Error("the authorization server did not issue a token");
    }
  } finally {
    loopback.stop();
  }
}

/** One connection through `wiring`: lists the tools, closes, and says how many. Nothing is journaled: no tool runs. */
async function probe(spec: RemoteSpec, wiring: AuthWiring, secrets: readonly string[]): Promise<number> {
  let c: Awaited<ReturnType<typeof connectTarget>>;
  try {
    c = await connectTarget(wiring.target, {
      pin: false,
      connectTimeoutMs: spec.connectTimeoutMs,
      requestTimeoutMs: spec.timeoutMs,
      version: VERSION,
      redactor: (s) => new StreamRedactor(s),
    });
  } catch (e) {
    throw Object.assign(new Error(redactText((e as Error).message || String(e), secrets)), { cause: e });
  }
  await c.close(0);
  return c.tools.length;
}

function waitFor<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(
        () =>
          reject(
            new Error(
              `no redirect came back within ${Math.round(ms / 1000)} s (open the URL above in a browser ` +
                `on this machine)`,
            ),
          ),
        ms,
      )),
  );
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
