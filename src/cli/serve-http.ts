// The flags of `serve --http` (help text and scanning), checked before the boot so a bad address or
// token file is exit 2 with nothing started; the trusted config's serve.oauth is applied after the
// boot (httpAfterBoot); listening is src/serve/http.ts, the OAuth door src/serve/oauth/.
import { bootError, usageError } from "../result/result.ts";
import { httpOptions, withConfigOAuth, type HttpOptions } from "../serve/http-options.ts";
import type { Hub } from "../serve/hub.ts";
import type { HttpServer } from "../serve/http.ts";
import type { Booted } from "../runtime/boot.ts";
import type { LineNarrowing } from "../serve/oauth/callers.ts";
import type { Get } from "../serve/oauth/discovery.ts";
import { httpClient } from "../http/client.ts";
import { bool, str, type Scanned } from "./flags.ts";
import { note } from "./ui.ts";

export const HTTP_ARGS = {
  http: {
    type: "string",
    description:
      "Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio (port 0 picks a free one; the address " +
      "is printed on stderr)",
    valueHint: "HOST:PORT",
  },
  "token-file": {
    type: "string",
    description:
      "Bearer token clients must send (the file's trimmed content, at least 32 characters; mode 600: no group " +
      "or other bits). Without it a token is generated and printed once on stderr",
    valueHint: "FILE",
  },
  "no-token": {
    type: "boolean",
    description: "No bearer token (loopback addresses only): for clients that cannot send a header",
  },
  "http-public": { type: "boolean", description: "Allow --http on an address other machines can reach" },
  "oauth-issuer": {
    type: "string",
    description:
      "Accept OAuth access tokens from this issuer instead of a static token: each caller is known by its " +
      "token and held to its caller rule (serve.callers); the config's serve.oauth sets audience and scopes",
    valueHint: "URL",
  },
} as const;

/** The HTTP options asked for, or undefined for stdio; a usage error (exit 2) when they do not hold. */
export function httpChoice(s: Scanned): HttpOptions | undefined {
  const http = str(s, "http");
  if (http === undefined) {
    const stray = ["token-file", "no-token", "http-public", "oauth-issuer"].find((f) => s.flags[f] !== undefined);
    if (stray)
      throw usageError(
        `--${stray} applies only to --http`,
        "add --http HOST:PORT, or leave it out to serve over stdio",
      );
    return undefined;
  }
  const o = httpOptions({
    http,
    httpPublic: bool(s, "http-public"),
    noToken: bool(s, "no-token"),
    tokenFile: str(s, "token-file"),
    oauthIssuer: str(s, "oauth-issuer"),
  });
  if (!o.ok) throw usageError(o.refusal.message, o.refusal.details as string | undefined);
  return o.value;
}

/** The options with the trusted config's serve.oauth applied (a static token beside it is exit 2). */
export function httpAfterBoot(o: HttpOptions, booted: Booted): HttpOptions {
  const r = withConfigOAuth(o, booted.config.values.serve?.oauth);
  if (!r.ok) throw usageError(r.refusal.message, r.refusal.details as string | undefined);
  return r.value;
}

/** Largest metadata document or key set read from the issuer. */
const MAX_METADATA_BYTES = 1024 * 1024;

/** A GET of the issuer's JSON (operator-chosen: trusted for its address class, still scheme-checked). */
export function issuerGet(booted: Booted): Get {
  const client = httpClient(booted.net);
  return async (url) => {
    const r = await client.get(url, {
      maxBytes: MAX_METADATA_BYTES,
      timeoutMs: 10_000,
      operatorEndpoint: true,
      headers: { Accept: "application/json" },
    });
    if (!r.ok) return { problem: r.refusal.message };
    if (r.value.truncated) return { problem: `larger than ${MAX_METADATA_BYTES} bytes` };
    try {
      return { status: r.value.status, json: JSON.parse(new TextDecoder().decode(r.value.bytes)) };
    } catch {
      return { status: r.value.status, json: undefined };
    }
  };
}

export interface HttpStart {
  readonly booted: Booted;
  /** What the serve line gives (its profile and --approve): each caller's rule narrows it. */
  readonly line: Omit<LineNarrowing, "profiles">;
}

export async function startHttp(hub: Hub, options: HttpOptions, s: HttpStart): Promise<HttpServer> {
  const { listenHttp } = await import("../serve/http.ts");
  const section = s.booted.config.values.serve;
  let oauth: Awaited<ReturnType<typeof import("../serve/oauth/start.ts").prepareOAuth>> | undefined;
  if (!options.oauth && section?.callers !== undefined)
    note(
      "serve.callers is not used: caller rules need OAuth access tokens (--oauth-issuer or serve.oauth); " +
        "every client with the token gets the serve line",
    );
  if (options.oauth) {
    const [{ prepareOAuth }, { callerRules }] = await Promise.all([
      import("../serve/oauth/start.ts"),
      import("../serve/oauth/callers.ts"),
    ]);
    const admit = callerRules(section?.callers, {
      ...s.line,
      profiles: s.booted.config.values.profiles,
    });
    if (!admit.ok)
      throw bootError(
        admit.refusal.message,
        "name a built-in profile (full, scout, writer) or one of the config's profiles",
      );
    oauth = await prepareOAuth(options.oauth, {
      get: issuerGet(s.booted),
      now: Date.now,
      log: note,
      admit: admit.value,
    });
    if (!oauth.ok)
      throw bootError(
        oauth.problem,
        `check ${options.oauth.from}: the issuer's URL exactly as its tokens' iss names it, reachable from here`,
      );
  }
  const r = await listenHttp({ hub, options, log: note, ...(oauth?.ok ? { oauth: oauth.value } : {}) });
  if (!r.ok) throw bootError(r.refusal.message, "pick another port (0 lets the system choose) or stop what holds it");
  return r.value;
}
