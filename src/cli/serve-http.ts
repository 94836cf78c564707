// The flags of `serve --http` (help text and scanning), checked before the boot so a bad address or
// token file is exit 2 with nothing started; listening is src/serve/http.ts.
import { bootError, usageError } from "../result/result.ts";
import { httpOptions, type HttpOptions } from "../serve/http-options.ts";
import type { Hub } from "../serve/hub.ts";
import type { HttpServer } from "../serve/http.ts";
import { bool, str, type FlagSpec, type Scanned } from "./flags.ts";
import { note } from "./ui.ts";

export const HTTP_ARGS = {
  http: { type: "string", description: "Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (port 0 picks a free one; the address is printed on stderr)", valueHint: "HOST:PORT" },
  "token-file": { type: "string", description: "Bearer token clients must send (the file's trimmed content, at least 32 characters; mode 600: no group or other bits). Without it a token is generated and printed once on stderr", valueHint: "FILE" },
  "no-token": { type: "boolean", description: "No bearer token (loopback addresses only): for clients that cannot send a header" },
  "http-public": { type: "boolean", description: "Allow --http on an address other machines can reach" },
} as const;

export const HTTP_FLAGS: Record<string, FlagSpec> = {
  http: { kind: "string" },
  "token-file": { kind: "string" },
  "no-token": { kind: "bool" },
  "http-public": { kind: "bool" },
};

/** The HTTP options asked for, or undefined for stdio; a usage error (exit 2) when they do not hold. */
export function httpChoice(s: Scanned): HttpOptions | undefined {
  const http = str(s, "http");
  if (http === undefined) {
    const stray = ["token-file", "no-token", "http-public"].find((f) => s.flags[f] !== undefined);
    if (stray) throw usageError(`--${stray} applies only to --http`, "add --http HOST:PORT, or leave it out to serve over stdio");
    return undefined;
  }
  const o = httpOptions({ http, httpPublic: bool(s, "http-public"), noToken: bool(s, "no-token"), tokenFile: str(s, "token-file") });
  if (!o.ok) throw usageError(o.refusal.message, o.refusal.details as string | undefined);
  return o.value;
}

export async function startHttp(hub: Hub, options: HttpOptions): Promise<HttpServer> {
  const { listenHttp } = await import("../serve/http.ts");
  const r = await listenHttp({ hub, options, log: note });
  if (!r.ok) throw bootError(r.refusal.message, "pick another port (0 lets the system choose) or stop what holds it");
  return r.value;
}
