// Invisible format characters (Unicode category Cf: U+200B, U+00AD, U+FEFF, bidi controls, tag
// characters, …) for the output boundary (SPEC "Boundary readings"): keys, PEM markers and path
// tokens are matched as if they were not there, so `to\u200bken` is `token`. Pure; char-code tests.

/**
 * How many UTF-16 units of a format character start at i: 0 (none), 1 or 2 (astral). Written as
 * comparisons (it runs on the boundary's hot path); test/boundary/format.test.ts checks it
 * against the engine's `\p{Cf}` for every code point.
 */
export function formatLength(s: string, i: number): 0 | 1 | 2 {
  const c = s.charCodeAt(i);
  if (c < 0x600) return c === 0xad ? 1 : 0;
  if (c < 0x2000) return c <= 0x605 || c === 0x61c || c === 0x6dd || c === 0x70f || c === 0x890 || c === 0x891 || c === 0x8e2 || c === 0x180e ? 1 : 0;
  if (c <= 0x206f) return (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) || (c >= 0x2060 && c <= 0x2064) || c >= 0x2066 ? 1 : 0;
  if (c < 0xd800) return 0;
  if (c <= 0xdbff) return isAstralFormat(s.codePointAt(i)!) ? 2 : 0;
  return c === 0xfeff || (c >= 0xfff9 && c <= 0xfffb) ? 1 : 0;
}

function isAstralFormat(p: number): boolean {
  return (
    p === 0x110bd || p === 0x110cd || (p >= 0x13430 && p <= 0x1343f) || (p >= 0x1bca0 && p <= 0x1bca3) ||
    (p >= 0x1d173 && p <= 0x1d17a) || p === 0xe0001 || (p >= 0xe0020 && p <= 0xe007f)
  );
}

/** Whether the unit at i ends a format character (backward walks: a low surrogate of an astral Cf counts). */
export function formatEndsAt(s: string, i: number): 0 | 1 | 2 {
  const c = s.charCodeAt(i);
  if (c < 0xad) return 0;
  if (c >= 0xdc00 && c <= 0xdfff) return i > 0 && formatLength(s, i - 1) === 2 ? 2 : 0;
  return formatLength(s, i) === 1 ? 1 : 0;
}

/** Whether any format character occurs in s. */
export function hasFormat(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0xad && formatLength(s, i) !== 0) return true;
  return false;
}

const FORMAT = /\p{Cf}/gu;

/** The string with every format character removed. */
export const stripFormat = (s: string): string => s.replace(FORMAT, "");

/** The reading keys and PEM markers are matched in: format characters removed, each run of whitespace one space. */
export const foldForMatch = (s: string): string => s.replace(FORMAT, "").replace(/\s+/g, " ");
