// What `serve --http` was asked for, checked before the boot: the address to bind (an IP literal or
// localhost, loopback unless --http-public), and who may call: a static bearer token (from
// --token-file, generated, or none with --no-token on loopback only), or access tokens from an
// OAuth issuer (--oauth-issuer, or the trusted config's serve.oauth), never both. Every problem is
// a refusal naming the flag to change.
import { randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { ok, refuse, type Outcome } from "../result/result.ts";
import type { OAuthSettings } from "./oauth/resource.ts";

export interface HttpFlags {
  readonly http: string;
  readonly httpPublic: boolean;
  readonly noToken: boolean;
  readonly tokenFile: string | undefined;
  readonly oauthIssuer?: string | undefined;
}

export interface HttpOptions {
  /** The address Bun binds: an IPv4 or IPv6 literal (localhost is 127.0.0.1). */
  readonly host: string;
  /** 0 lets the system pick a free port. */
  readonly port: number;
  readonly loopback: boolean;
  /** null: --no-token, or OAuth. */
  readonly token: string | null;
  /**
   * Where the token came from: shown once on stderr when generated, never otherwise; "oauth": access tokens instead.
   */
  readonly tokenSource: "file" | "generated" | "none" | "oauth";
  /** Set with tokenSource "oauth". */
  readonly oauth?: OAuthSettings;
}

/** The OAuth settings --oauth-issuer alone gives (the trusted config's serve.oauth adds to them). */
export const issuerOnly = (issuer: string, from = "--oauth-issuer"): OAuthSettings => ({
  issuer,
  scopes: [],
  groupsClaim: "groups",
  from,
});

/**
 * The options with the trusted config's serve.oauth applied: its issuer unless --oauth-issuer names
 * one, its audience, scopes and groups claim, and its jwks_uri when the issuer is its own. A
 * static token asked for beside it (--token-file, --no-token) is refused: the two never mix.
 */
export function withConfigOAuth(o: HttpOptions, c: ConfigOAuth | undefined): Outcome<HttpOptions> {
  if (c === undefined) return ok(o);
  if (o.tokenSource === "file" || o.tokenSource === "none") {
    return refuse(
      "usage",
      `${o.tokenSource === "file" ? "--token-file" : "--no-token"} was given, and the config's serve.oauth ` +
        `asks for OAuth access tokens`,
      "callers present either a static token or an access token, never both: drop the flag, or serve.oauth " +
        "from the config",
    );
  }
  const issuer = o.oauth?.issuer ?? c.issuer;
  const own = issuer === c.issuer;
  const oauth: OAuthSettings = {
    issuer,
    scopes: c.scopes ?? [],
    groupsClaim: c.groups_claim ?? "groups",
    from: o.oauth?.from ?? "serve.oauth",
    ...(c.audience !== undefined ? { audience: c.audience } : {}),
    ...(own && c.jwks_uri !== undefined ? { jwksUri: c.jwks_uri } : {}),
  };
  return ok({ ...o, token: null, tokenSource: "oauth", oauth });
}

/** The config's serve.oauth section (schema: src/config/schema.ts). */
export interface ConfigOAuth {
  readonly issuer: string;
  readonly audience?: string;
  readonly scopes?: readonly string[];
  readonly jwks_uri?: string;
  readonly groups_claim?: string;
}

// node:net on first use: a static import of a builtin is loaded at every start of the binary.
const isIP = (host: string): number => (require("node:net") as typeof import("node:net")).isIP(host);

const USAGE =
  "write --http HOST:PORT with an IP address or localhost, e.g. --http 127.0.0.1:8808 (port 0 picks a free one)";

/** Splits `HOST:PORT` (`[v6]:PORT` for IPv6) into a bindable address and a port. */
export function parseBind(spec: string): Outcome<{ host: string; port: number }> {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(spec);
  if (!m) return refuse("usage", `--http ${JSON.stringify(spec)} is not HOST:PORT`, USAGE);
  const port = Number(m[3]);
  if (port > 65_535) return refuse("usage", `--http ${JSON.stringify(spec)}: port ${port} is past 65535`, USAGE);
  const raw = (m[1] ?? m[2]!).toLowerCase();
  const host = raw === "localhost" ? "127.0.0.1" : raw;
  const family = isIP(host);
  if (family === 0 || (m[1] !== undefined) !== (family === 6))
    return refuse("usage", `--http ${JSON.stringify(spec)}: "${raw}" is not an IP address or localhost`, USAGE);
  return ok({ host, port });
}

/** 127.0.0.0/8 and ::1 (also as an IPv4-mapped address); 0.0.0.0 and :: mean every interface. */
export function isLoopback(host: string): boolean {
  const v4 = host.startsWith("::ffff:") ? host.slice(7) : host;
  if (isIP(v4) === 4) return v4.split(".")[0] === "127";
  return host === "::1" || host === "0:0:0:0:0:0:0:1";
}

/** The shortest token a file may hold: a generated one is 43 characters (32 random bytes). */
export const MIN_TOKEN_CHARS = 32;

/**
 * Reads a token file: trimmed, one word of at least MIN_TOKEN_CHARS, and private to its owner (no
 * group or other bits: it is a password, and a group may hold users the owner does not vouch for).
 */
export function readTokenFile(path: string, stat = statSync, read = readFileSync): Outcome<string> {
  let mode: number;
  let text: string;
  try {
    mode = stat(path).mode;
    text = read(path, "utf8") as string;
  } catch (e) {
    return refuse(
      "usage",
      `--token-file ${path}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      "give the path of a file holding the bearer token",
    );
  }
  if ((mode & 0o077) !== 0) {
    const who = (mode & 0o007) !== 0 ? "every user on this machine" : "its group";
    return refuse(
      "usage",
      `--token-file ${path} has mode ${(mode & 0o777).toString(8).padStart(4, "0")}: ${who} may read or change it`,
      `make it private to you: chmod 600 ${path}`,
    );
  }
  const token = text.trim();
  if (token === "")
    return refuse(
      "usage",
      `--token-file ${path} is empty`,
      "write the bearer token into it (one line), or leave --token-file out to have one generated",
    );
  if (/[\s\x00-\x1f\x7f]/.test(token))
    return refuse(
      "usage",
      `--token-file ${path}: the token has a space or a control character inside it`,
      "a bearer token is one word on one line",
    );
  if (token.length < MIN_TOKEN_CHARS) {
    return refuse(
      "usage",
      `--token-file ${path}: the token is ${token.length} character${token.length === 1 ? "" : "s"} long; at ` +
        `least ${MIN_TOKEN_CHARS} are required`,
      `write a longer random token, e.g. openssl rand -hex 32 > ${path} (or leave --token-file out to have ` +
        `one generated)`,
    );
  }
  return ok(token);
}

/** A fresh token: 32 random bytes, base64url (43 characters). */
export const generateToken = (random: (n: number) => Uint8Array = randomBytes): string =>
  Buffer.from(random(32)).toString("base64url");

export function httpOptions(f: HttpFlags, random?: (n: number) => Uint8Array): Outcome<HttpOptions> {
  const bind = parseBind(f.http);
  if (!bind.ok) return bind;
  const { host, port } = bind.value;
  const loopback = isLoopback(host);
  if (!loopback && !f.httpPublic) {
    return refuse(
      "usage",
      `--http ${f.http} is not a loopback address: other machines could reach it`,
      `bind 127.0.0.1 (or [::1]), or add --http-public to serve other machines (a bearer token is then required)`,
    );
  }
  if (f.noToken && f.tokenFile !== undefined)
    return refuse("usage", "--no-token and --token-file were both given", "keep one of them");
  if (f.oauthIssuer !== undefined) {
    if (f.noToken || f.tokenFile !== undefined)
      return refuse(
        "usage",
        `--oauth-issuer and ${f.noToken ? "--no-token" : "--token-file"} were both given`,
        "callers present either a static token or an access token, never both: keep one of them",
      );
    return ok({ host, port, loopback, token: null, tokenSource: "oauth", oauth: issuerOnly(f.oauthIssuer) });
  }
  if (f.noToken) {
    if (!loopback)
      return refuse(
        "usage",
        `--no-token is allowed only on a loopback address, not ${f.http}`,
        "give --token-file FILE, or leave both out to have a token generated",
      );
    return ok({ host, port, loopback, token: null, tokenSource: "none" });
  }
  if (f.tokenFile !== undefined) {
    const t = readTokenFile(f.tokenFile);
    return t.ok ? ok({ host, port, loopback, token: t.value, tokenSource: "file" }) : t;
  }
  return ok({ host, port, loopback, token: generateToken(random), tokenSource: "generated" });
}
