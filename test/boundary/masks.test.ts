import { describe, expect, test } from "bun:test";
import { encodedForms, masksOf, MIN_ENCODED_LENGTH } from "../../src/boundary/masks.ts";
import { REDACTED, redactText } from "../../src/boundary/redact.ts";

const R = REDACTED;

describe("encodedForms", () => {
  test("base64 and base64url at offsets 0, 1, 2 (the stable inner part), then hex in both cases", () => {
    // "a?>~b" holds the bytes whose base64 uses + and /: 0x3f 0x3e 0x7e.
    expect(encodedForms(Buffer.from("a?>~b"))).toEqual([
      "YT8+fm",
      "YT8-fm",
      "E/Pn5i",
      "E_Pn5i",
      "hPz5+Y",
      "hPz5-Y",
      "613f3e7e62",
      "613F3E7E62",
    ]);
  });
});

describe("masksOf", () => {
  test.each([
    ["no secrets", [], { texts: [], patterns: 0, longest: 0 }],
    ["a value too short to redact", ["abc"], { texts: [], patterns: 0, longest: 0 }],
    [
      "a 4-byte value: itself and its hex (base64 forms are under 8 chars)",
      ["abcd"],
      { texts: ["61626364", "abcd"], patterns: 1, longest: 12 },
    ],
    [
      "a 6-byte value: base64 at offset 0 only (longest first)",
      ["abcdef"],
      { texts: ["616263646566", "YWJjZGVm", "abcdef"], patterns: 1, longest: 18 },
    ],
    ["repeats count once", ["abcd", "abcd"], { texts: ["61626364", "abcd"], patterns: 1, longest: 12 }],
  ] as const)("%s", (_name, secrets, expected) => {
    const m = masksOf(secrets);
    expect({ texts: m.texts, patterns: m.patterns.length, longest: m.longest }).toEqual(expected);
  });

  test("a 7-byte value gets every alignment; hex of digits only is one form", () => {
    expect([...masksOf(["abcdefg"]).texts].sort()).toEqual([
      "61626364656667",
      "FiY2RlZm",
      "YWJjZGVmZ",
      "abcdefg",
      "hYmNkZWZn",
    ]);
  });

  test("every encoded form is at least the minimum long", () => {
    const secrets = ["abcd", "abcde", "abcdef", "abcdefg", "0123456789abcdef"];
    expect(masksOf(secrets).texts.filter((t) => !secrets.includes(t) && t.length < MIN_ENCODED_LENGTH)).toEqual([]);
  });
});

/** A small seeded generator (mulberry32): the same cases on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("whatever the neighbours, an encoded secret is covered", () => {
  const random = seeded(30);
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(random() * 256)));
  const chars = [..."abcXYZ019-_.~!*'() /+?=&%:\"é€😀"];
  const text = (n: number) => Array.from({ length: n }, () => chars[Math.floor(random() * chars.length)]).join("");

  /** Encoders of a byte stream, with the characters of it that depend on bytes [from, to) only. */
  const encoders: Array<[string, (b: Buffer) => string, (from: number, to: number) => [number, number]]> = [
    ["base64", (b) => b.toString("base64"), (f, t) => [Math.ceil((8 * f) / 6), Math.floor((8 * t) / 6)]],
    ["base64url", (b) => b.toString("base64url"), (f, t) => [Math.ceil((8 * f) / 6), Math.floor((8 * t) / 6)]],
    ["hex", (b) => b.toString("hex"), (f, t) => [2 * f, 2 * t]],
    ["HEX", (b) => b.toString("hex").toUpperCase(), (f, t) => [2 * f, 2 * t]],
  ];

  test.each(encoders)("%s: 300 random secrets, 0 to 5 bytes before, 0 to 5 after", (_name, encode, stable) => {
    for (let i = 0; i < 300; i++) {
      const secret = text(7 + Math.floor(random() * 30));
      const before = bytes(Math.floor(random() * 6));
      const after = bytes(Math.floor(random() * 6));
      const s = Buffer.from(secret);
      const encoded = encode(Buffer.concat([before, s, after]));
      const [from, to] = stable(before.length, before.length + s.length);
      const out = redactText(encoded, [secret]);
      expect([secret, out.includes(R), out.includes(encoded.slice(from, to))]).toEqual([secret, true, false]);
    }
  });

  const percent: Array<[string, (s: string) => string]> = [
    ["encodeURIComponent", encodeURIComponent],
    ["a form's +", (s) => encodeURIComponent(s).replaceAll("%20", "+")],
    ["every byte, lower case", (s) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("")],
    ["encodeURI", encodeURI],
  ];

  test.each(percent)("percent-encoded (%s): 300 random secrets", (_name, encode) => {
    for (let i = 0; i < 300; i++) {
      const secret = text(4 + Math.floor(random() * 30));
      const out = redactText(`x=${encode(secret)}&y`, [secret]);
      expect([secret, out]).toEqual([secret, `x=${R}&y`]);
    }
  });
});
