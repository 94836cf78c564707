// The characters of the output boundary's readings (docs/boundary.md, Invisible and
// look-alike characters): what counts as whitespace, what is removed before keys, PEM markers and
// paths are matched, and which characters may stand for a dash. Pure. Printable ASCII has none of
// the invisible characters, so the scanners read ASCII text as it is and clean only the rest.

/** Unicode White_Space (NEL U+0085, U+2028 and U+2029 included); U+FEFF is not whitespace but invisible. */
export function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 133) return false;
  return (
    c === 133 ||
    c === 160 ||
    c === 5760 ||
    (c >= 8192 && c <= 8202) ||
    c === 8232 ||
    c === 8233 ||
    c === 8239 ||
    c === 8287 ||
    c === 12288
  );
}

/**
 * Removed before matching: every Default_Ignorable_Code_Point (U+200B, U+00AD, U+034F, variation
 * selectors, Hangul fillers, tag characters, …), combining marks (Mn, Me) and, as before, every
 * format character (Cf; a few, such as U+0600, are not default-ignorable).
 */
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Mn}\p{Me}]/u;
const INVISIBLE_ALL = /[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Mn}\p{Me}]/gu;
const NON_ASCII = /[^\x00-\x7f]/;
const WHITESPACE_RUNS = /\p{White_Space}+/gu;
const WIDE_SPACE = /[\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/g;

/** Whether any character of s lies outside ASCII (only those need cleaning or a skeleton). */
export const hasNonAscii = (s: string): boolean => NON_ASCII.test(s);

/** s with every invisible character removed (the same string when it has none). */
export const removeInvisible = (s: string): string => (INVISIBLE.test(s) ? s.replace(INVISIBLE_ALL, "") : s);

/** The reading keys and PEM markers are matched in: invisible characters removed, each whitespace run one space. */
export const foldForMatch = (s: string): string => removeInvisible(s).replace(WHITESPACE_RUNS, " ");

/** Whitespace beyond ASCII turned into spaces, so JSON.parse sees it as whitespace too. */
export const asciiSpaces = (s: string): string => s.replace(WIDE_SPACE, " ");

/**
 * Characters whose confusable skeleton (or NFKC form) holds a `-`: the dash look-alikes a PEM
 * marker may be spelled with (U+2010 hyphen, U+2212 minus, the fullwidth and small hyphen-minus,
 * …). test/boundary/format.test.ts derives the list again from the confusables package and NFKC.
 */
export const DASH_LIKE: ReadonlySet<number> = new Set([
  0x2d, 0x2d7, 0x6d4, 0x2010, 0x2011, 0x2012, 0x2013, 0x2043, 0x207b, 0x208b, 0x2212, 0x2238, 0x2796, 0x2a29, 0x2a2a,
  0x2cba, 0x2e1a, 0xa4fe, 0xfb29, 0xfe32, 0xfe58, 0xfe63, 0xff0d,
]);

/** Can a marker's four dashes be in s? A run of four dash-like characters (s already cleaned). */
export function hasDashRun(s: string): boolean {
  let run = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 45 || (c >= 0x2d7 && DASH_LIKE.has(c))) {
      if (++run === 4) return true;
    } else run = 0;
  }
  return false;
}
