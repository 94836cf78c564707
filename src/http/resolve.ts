// Names to addresses for the URL policy: `--resolve HOST:PORT:ADDR[,ADDR...]` pins (as curl's
// flag does) come first, then the injected resolver. A failure is a refusal, never a retry elsewhere.
import { parseNet } from "../permission/net.ts";

/** `host:port` → the addresses it is pinned to. */
export type Pins = ReadonlyMap<string, readonly string[]>;

/** Looks a name up: every address it has (A and AAAA), or throws. */
export type Resolver = (host: string) => Promise<string[]>;

/** One --resolve value, or the reason it is not one. */
export function parsePin(raw: string): { key: string; addresses: string[] } | { error: string } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5}):(.+)$/.exec(raw);
  if (m === null) return { error: "expected HOST:PORT:ADDR[,ADDR...]" };
  const net = parseNet(`${m[1]}:${m[2]}`);
  if (net === null || net.port === undefined)
    return { error: `${JSON.stringify(m[1])}:${m[2]} is not a host and port` };
  const addresses: string[] = [];
  for (const part of m[3]!.split(",")) {
    const address = canonicalAddress(part.startsWith("[") && part.endsWith("]") ? part.slice(1, -1) : part);
    if (address === null) return { error: `${JSON.stringify(part)} is not an IP address` };
    addresses.push(address);
  }
  return { key: `${net.host}:${net.port}`, addresses };
}

/**
 * An IP address in its canonical text, through the WHATWG host parser (kept off ipaddr.js so the
 * flag costs start-up nothing). Only dotted-quad decimal IPv4: "127.1" or "0x7f.0.0.1" would be a
 * second spelling to audit.
 */
function canonicalAddress(text: string): string | null {
  if (text.includes("%")) return null;
  try {
    if (text.includes(":")) return new URL(`http://[${text}]/`).hostname.slice(1, -1);
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) return null;
    const host = new URL(`http://${text}/`).hostname;
    // A leading zero is octal to the parser: refused rather than read two ways.
    return host === text ? host : null;
  } catch {
    return null;
  }
}

/** All pins from the repeated flag; the first error names the value. */
export function parsePins(values: readonly string[]): { pins: Map<string, string[]> } | { error: string } {
  const pins = new Map<string, string[]>();
  for (const v of values) {
    const p = parsePin(v);
    if ("error" in p) return { error: `--resolve ${JSON.stringify(v)}: ${p.error}` };
    pins.set(p.key, [...(pins.get(p.key) ?? []), ...p.addresses]);
  }
  return { pins };
}

/** The system's resolver (getaddrinfo through node:dns), every family, in its order. */
export const systemResolver: Resolver = async (host) => {
  const { lookup } = await import("node:dns/promises");
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((a) => a.address);
};
