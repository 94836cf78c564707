// The URL policy's pure half: a URL is parsed by the WHATWG parser (which already reads every
// spelling of a literal address: decimal, octal, hex, short dotted, percent-encoded, IDNA), then
// its scheme, userinfo and host are judged. Addresses DNS returns are judged by `judgeAnswers`.
import { classifyAddress, type AddressClass } from "./address.ts";
import { refuse, type Outcome, type Refusal } from "../result/result.ts";
import { auditView } from "./audit.ts";

export { auditView };

export interface Checked {
  readonly url: URL;
  /** The host as the URL parser canonicalized it, a trailing dot dropped (IPv6 keeps brackets). */
  readonly host: string;
  readonly port: number;
  /** Set when the host is a literal address. */
  readonly literal: AddressClass | null;
}

/** What decides whether a non-public address may be reached. */
export interface Reach {
  /** Exact `host:port` allow-net grants (never a host-wide one, never the whole kind). */
  readonly exact: ReadonlySet<string>;
  /** `host:port` names --resolve pinned: their exact grant by name also reaches the pinned address. */
  readonly pinned: ReadonlySet<string>;
  /** Operator endpoints (rails, Most): trusted for their address class, still scheme-checked. */
  readonly trustAddressClass?: boolean;
}

export const rejected = (
  rule: string,
  message: string,
  details: Record<string, unknown> = {},
): { ok: false; refusal: Refusal } => refuse("url.rejected", message, { rule, ...details });

const defaultPort = (protocol: string) => (protocol === "https:" ? 443 : 80);

/** Scheme, userinfo, host name and literal address; DNS comes after (see judgeAnswers). */
export function checkUrl(raw: string, reach: Reach): Outcome<Checked> {
  // A zone id (`[fe80::1%25eth0]`) names an interface, not a host: the parser refuses it too, but say why.
  if (/\[[^\]]*%/.test(raw.slice(0, raw.indexOf("]") + 1)))
    return rejected(
      "zone_id",
      "the URL's IPv6 host carries a zone id (%25...), which names a local interface; give a public host",
    );
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return rejected("invalid_url", "the URL cannot be parsed (give an absolute http:// or https:// URL)");
  }
  const scheme = schemeRefused(url);
  if (scheme) return scheme;
  if (url.username !== "" || url.password !== "")
    return rejected(
      "userinfo",
      "the URL carries a user name or password (user:pass@host), which is refused; send credentials another way",
      { url: auditView(url) },
    );
  const port = url.port === "" ? defaultPort(url.protocol) : Number(url.port);
  // One trailing dot names the same host (`localhost.`): judged without it.
  const host = url.hostname.replace(/(?<=[^.])\.$/, "");
  if (host === "" || host.endsWith(".")) return rejected("invalid_url", "the URL has no host name");
  const literal = classifyAddress(host);
  const checked: Checked = { url, host, port, literal };
  if (literal !== null) {
    const ok = judgeAddress(literal, host, port, reach, false);
    return ok.ok ? { ok: true, value: checked } : ok;
  }
  // Names that are loopback by definition (RFC 6761) never reach DNS (see LOOPBACK).
  if (isLoopbackName(host)) {
    if (reach.trustAddressClass || reach.exact.has(`${host}:${port}`)) return { ok: true, value: checked };
    return rejected(
      "private_address",
      `${host} is a loopback name; only an exact grant reaches it (--allow-net=${host}:${port})`,
      { host, range: "loopback", flag: `--allow-net=${host}:${port}` },
    );
  }
  return { ok: true, value: checked };
}

/**
 * The refusal of a URL whose scheme is not http or https, or null. The parser has read the scheme
 * already: `file:`, `FILE:`, ` file:` and `file:///etc/x` are all the file scheme, with or without
 * a path, and are refused alike (web_extract says the same before any grant is asked for).
 */
export function schemeRefused(url: URL): { ok: false; refusal: Refusal } | null {
  if (url.protocol === "http:" || url.protocol === "https:") return null;
  const scheme = url.protocol.slice(0, -1).slice(0, 20);
  const file = scheme === "file" ? " (that scheme names a file on this machine: file_read reads one)" : "";
  return rejected("scheme", `the scheme ${JSON.stringify(scheme)} is not allowed; only http and https are${file}`, {
    scheme,
  });
}

/** `localhost` and every name under it: loopback by definition (RFC 6761). */
export const isLoopbackName = (host: string): boolean => host === "localhost" || host.endsWith(".localhost");

/** What a loopback name leads to, resolved here without DNS: IPv4 first, then IPv6. */
export const LOOPBACK: readonly string[] = ["127.0.0.1", "::1"];

function judgeAddress(
  a: AddressClass,
  host: string,
  port: number,
  reach: Reach,
  viaPin: boolean,
): { ok: true } | { ok: false; refusal: Refusal } {
  if (a.public || reach.trustAddressClass) return { ok: true };
  const addrKey = `${a.address.includes(":") ? `[${a.address}]` : a.address}:${port}`;
  if (reach.exact.has(addrKey)) return { ok: true };
  if (viaPin && reach.pinned.has(`${host}:${port}`) && reach.exact.has(`${host}:${port}`)) return { ok: true };
  const flag = viaPin ? `--allow-net=${host}:${port}` : `--allow-net=${addrKey}`;
  const what =
    host === a.address || host === `[${a.address}]` ? `the address ${host}` : `${host} resolves to ${a.address}, which`;
  return rejected(
    "private_address",
    `${what} is in a non-public range (${a.range}); only an exact grant reaches it (${flag})`,
    { host, address: a.address, range: a.range, flag },
  );
}

/**
 * Every answer must be public (or exactly granted): one private answer among public ones refuses
 * the whole name, since the connection could be steered to it. Returns the addresses to try, in order.
 */
export function judgeAnswers(
  host: string,
  port: number,
  answers: readonly string[],
  reach: Reach,
  pinned: boolean,
): Outcome<string[]> {
  if (answers.length === 0) return rejected("dns_failed", `${host} has no address`, { host });
  const out: string[] = [];
  for (const answer of answers) {
    const a = classifyAddress(answer);
    if (a === null) return rejected("dns_failed", `${host} resolved to something that is not an address`, { host });
    const ok = judgeAddress(a, host, port, reach, pinned);
    if (!ok.ok) return ok;
    out.push(a.address);
  }
  return { ok: true, value: out };
}
