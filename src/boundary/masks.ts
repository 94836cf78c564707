// The forms a bound secret is masked in, derived in this one place for every view redact.ts
// serves (results, tails, artifacts, task logs, the journal): the literal value, and the encodings
// a command or server commonly prints it in — base64 and base64url at each byte alignment, hex in
// either case, percent-encoding. Pure. JSON or XML escapes, base32, compressed or line-wrapped
// encodings and any other transformation are not masked.

/**
 * Bound values shorter than this are not redacted. Masking every "abc" would mangle output, and
 * the pattern of markers would itself give a 1–3 char value away; a value that short is no
 * secret worth the name, so config should refuse to bind one.
 */
export const MIN_SECRET_LENGTH = 4;

/**
 * An encoded form (base64, base64url, hex) shorter than this is not masked: a few base64
 * characters turn up in ordinary words and identifiers, and masking them would mangle output
 * without hiding much. So base64 needs a secret of 6 bytes (offset 0 only) or 7 bytes (all three
 * alignments); hex, at 2 characters a byte, is always long enough.
 */
export const MIN_ENCODED_LENGTH = 8;

export interface Masks {
  /** Literal texts, distinct, longest first. */
  readonly texts: readonly string[];
  /** Global patterns (the percent-encoded forms), used synchronously from lastIndex 0. */
  readonly patterns: readonly RegExp[];
  /** The most UTF-16 units one match can span: a stream holds back one less. */
  readonly longest: number;
}

export const NO_MASKS: Masks = Object.freeze({ texts: [], patterns: [], longest: 0 });

/** Lists seen lately: the journal redacts each field of each row with the same secrets. */
const memo = new Map<string, Masks>();
const MEMO_MAX = 32;

/** Every form of every usable secret. */
export function masksOf(secrets: readonly string[]): Masks {
  if (secrets.length === 0) return NO_MASKS;
  const key = JSON.stringify(secrets);
  const known = memo.get(key);
  if (known !== undefined) return known;
  const texts = new Set<string>();
  const patterns: RegExp[] = [];
  let longest = 0;
  for (const secret of new Set(secrets)) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    texts.add(secret);
    const bytes = Buffer.from(secret, "utf8");
    for (const form of encodedForms(bytes)) if (form.length >= MIN_ENCODED_LENGTH) texts.add(form);
    const percent = percentPattern(secret);
    patterns.push(percent.pattern);
    longest = Math.max(longest, percent.longest);
  }
  const sorted = [...texts].sort((a, b) => b.length - a.length);
  const masks: Masks =
    sorted.length === 0 ? NO_MASKS : { texts: sorted, patterns, longest: Math.max(longest, sorted[0]!.length) };
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(key, masks);
  return masks;
}

/**
 * base64 and base64url of the secret at byte offset 0, 1 and 2 of a longer stream (padding, and
 * the characters it shares with the bytes around it, left out), and hex in lower and upper case.
 */
export function encodedForms(bytes: Buffer): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const shifted = offset === 0 ? bytes : Buffer.concat([Buffer.alloc(offset), bytes]);
    // Character i carries bits [6i, 6i + 6); the secret's are [8 * offset, 8 * (offset + n)).
    const inner = shifted.toString("base64").slice(Math.ceil((8 * offset) / 6), Math.floor((8 * shifted.length) / 6));
    out.push(inner, inner.replaceAll("+", "-").replaceAll("/", "_"));
  }
  const hex = bytes.toString("hex");
  out.push(hex, hex.toUpperCase());
  return out;
}

/**
 * The secret with each character either as it is or as its UTF-8 bytes in `%XX` (hex in either
 * case), and a space also as `+`: so encodeURIComponent, a query string's `+`, and encoders that
 * escape more or fewer characters (every byte, say) are all caught.
 */
function percentPattern(secret: string): { pattern: RegExp; longest: number } {
  let source = "";
  let longest = 0;
  for (const ch of secret) {
    const bytes = Buffer.from(ch, "utf8");
    let encoded = "";
    for (const b of bytes) encoded += `%${hexDigitClass(b >> 4)}${hexDigitClass(b & 15)}`;
    // Encoded first: where both readings match (a `%` before `25`), the longer one is masked.
    source += `(?:${encoded}|${escapeRegExp(ch)}${ch === " " ? "|\\+" : ""})`;
    longest += Math.max(ch.length, 3 * bytes.length);
  }
  return { pattern: new RegExp(source, "g"), longest };
}

const hexDigitClass = (d: number): string => (d < 10 ? String(d) : `[${"ABCDEF"[d - 10]}${"abcdef"[d - 10]}]`);

const escapeRegExp = (s: string): string => s.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&");
