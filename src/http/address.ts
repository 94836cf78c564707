// Classifies one IP address as public or as the special range it falls in. The ranges come from
// ipaddr.js (a maintained table), never from our own; only `unicast` counts as public.
import ipaddr from "ipaddr.js";

export type AddressClass =
  | { readonly public: true; readonly address: string }
  | { readonly public: false; readonly address: string; readonly range: string };

/** IPv6 prefixes that carry an IPv4 address in their last 32 bits: judged by that address. */
const EMBEDS_V4 = new Set(["ipv4Mapped", "rfc6145"]);

/** null when `text` is not an IP address (a bracketed IPv6 is accepted). A zone id is not an address. */
export function classifyAddress(text: string): AddressClass | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (bare.includes("%") || !ipaddr.isValid(bare)) return null;
  // ipaddr.js also reads "0x7f.1" or "127.1" as IPv4: canonical text only comes from the URL parser.
  const parsed = ipaddr.parse(bare);
  const address = parsed.toString();
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6;
    const range = v6.range();
    const parts = v6.parts;
    if (EMBEDS_V4.has(range)) return judged(address, embedded(parts), range);
    if (isNat64WellKnown(parts)) return judged(address, embedded(parts), "nat64");
    // ::a.b.c.d (IPv4-compatible, deprecated by RFC 4291) reads as unicast to the library.
    if (range === "unicast" && parts.slice(0, 6).every((p) => p === 0))
      return { public: false, address, range: "ipv4Compatible" };
    return range === "unicast" ? { public: true, address } : { public: false, address, range };
  }
  const range = parsed.range();
  return range === "unicast" ? { public: true, address } : { public: false, address, range };
}

// 64:ff9b::/96 (RFC 6052's well-known NAT64 prefix): the gateway connects to the embedded address.
function isNat64WellKnown(parts: number[]): boolean {
  return parts[0] === 0x64 && parts[1] === 0xff9b && parts.slice(2, 6).every((p) => p === 0);
}

function embedded(parts: number[]): ipaddr.IPv4 {
  return new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff]);
}

function judged(address: string, v4: ipaddr.IPv4, prefix: string): AddressClass {
  const range = v4.range();
  return range === "unicast" ? { public: true, address } : { public: false, address, range: `${prefix}:${range}` };
}
