// Who may talk to `serve --http`, checked on every request before any MCP handling: the Host and
// Origin headers must name this server (DNS-rebinding protection: a web page whose name resolves
// to 127.0.0.1 still sends its own name), then the bearer token must match (compared in constant time).
import { createHash, timingSafeEqual } from "node:crypto";

/** `[v6]` for IPv6 literals, as they appear in Host headers and URLs. */
export const bracketed = (host: string): string => (host.includes(":") ? `[${host}]` : host);

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
const WILDCARDS = new Set(["0.0.0.0", "::"]);

export interface Guard {
  /** Host header values (lowercase) this server answers to. */
  readonly hosts: ReadonlySet<string>;
  /** Host names an Origin may carry (any port, http or https). */
  readonly originHosts: ReadonlySet<string>;
}

/**
 * What Host and Origin may say for a server bound to `host:port`: a loopback bind answers to its
 * own address and the loopback names; a specific public address to itself only; a wildcard bind
 * (0.0.0.0, ::) to this machine's interface addresses (`interfaces`) and the loopback names.
 */
export function guardFor(host: string, port: number, loopback: boolean, interfaces: () => readonly string[]): Guard {
  const names = new Set<string>([bracketed(host)]);
  if (loopback) for (const n of LOOPBACK_NAMES) names.add(n);
  if (WILDCARDS.has(host)) {
    names.delete(bracketed(host));
    for (const n of LOOPBACK_NAMES) names.add(n);
    for (const a of interfaces()) names.add(bracketed(a.toLowerCase()));
  }
  const hosts = new Set<string>();
  for (const n of names) {
    hosts.add(`${n}:${port}`);
    if (port === 80) hosts.add(n);
  }
  return { hosts, originHosts: names };
}

/** Why a request's Host or Origin is refused, or null when both are acceptable. */
export function rebindingProblem(g: Guard, hostHeader: string | null, originHeader: string | null): string | null {
  if (hostHeader === null || !g.hosts.has(hostHeader.toLowerCase()))
    return `Host ${JSON.stringify(hostHeader ?? "")} is not this server's address`;
  if (originHeader === null) return null;
  let origin: URL;
  try {
    origin = new URL(originHeader);
  } catch {
    return `Origin ${JSON.stringify(originHeader)} is not an http(s) origin of this server`;
  }
  if (
    (origin.protocol !== "http:" && origin.protocol !== "https:") ||
    !g.originHosts.has(origin.hostname.toLowerCase())
  ) {
    return `Origin ${JSON.stringify(originHeader)} is not an http(s) origin of this server`;
  }
  return null;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Whether `Authorization: Bearer <token>` carries `token`; both sides hashed so lengths never leak. */
export function bearerMatches(authorization: string | null, token: string): boolean {
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? "");
  const given = m?.[1] ?? "";
  return timingSafeEqual(digest(given), digest(token)) && m !== null;
}
