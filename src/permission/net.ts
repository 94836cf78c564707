// Parses and canonicalizes net permission values: `host`, `host:port`, `[v6]`, `[v6]:port`.
// Hosts go through the WHATWG URL host parser: lowercased, IDNA to punycode, IPv4/IPv6 normalized.

export interface NetValue {
  host: string; // canonical; IPv6 keeps its brackets
  port?: number;
}

// Characters that would make the URL parser read something else than a host (path, userinfo, ...).
const NOT_IN_HOST = /[\s/?#@\\%]/;

function canonicalHost(host: string): string | null {
  if (host === "" || NOT_IN_HOST.test(host)) return null;
  try {
    // One trailing dot names the same host (`localhost.` is `localhost`): strip it, so a deny
    // cannot be stepped around by spelling the fully qualified form.
    const parsed = new URL(`http://${host}/`).hostname.replace(/(?<=[^.])\.$/, "");
    return parsed === "" ? null : parsed;
  } catch {
    return null;
  }
}

function parsePort(text: string): number | null {
  if (!/^\d{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port <= 65535 ? port : null;
}

/** null when the value is not a host with an optional port (an unbracketed IPv6 is refused). */
export function parseNet(raw: string): NetValue | null {
  let hostPart: string;
  let portPart: string | undefined;
  if (raw.startsWith("[")) {
    const close = raw.indexOf("]");
    if (close < 0) return null;
    hostPart = raw.slice(0, close + 1);
    const rest = raw.slice(close + 1);
    if (rest !== "") {
      if (!rest.startsWith(":")) return null;
      portPart = rest.slice(1);
    }
  } else {
    const parts = raw.split(":");
    if (parts.length > 2) return null;
    hostPart = parts[0]!;
    portPart = parts[1];
  }
  const host = canonicalHost(hostPart);
  if (host === null) return null;
  if (portPart === undefined) return { host };
  const port = parsePort(portPart);
  return port === null ? null : { host, port };
}

export function formatNet(value: NetValue): string {
  return value.port === undefined ? value.host : `${value.host}:${value.port}`;
}

/**
 * `localhost` is loopback by definition (RFC 6761): a grant for it on a port also covers the
 * loopback addresses on that port, which is where the name leads.
 */
const LOCALHOST_ADDRESSES = ["127.0.0.1", "[::1]"];

/** Whether a grant's host covers a need's host: the same host, or a loopback address of `localhost`. */
export function hostCovers(grant: string, need: string): boolean {
  return grant === need || (grant === "localhost" && LOCALHOST_ADDRESSES.includes(need));
}

/** The hosts a grant for `host` reaches by name: itself, and for `localhost` its loopback addresses. */
export function hostsOf(host: string): string[] {
  return host === "localhost" ? [host, ...LOCALHOST_ADDRESSES] : [host];
}
