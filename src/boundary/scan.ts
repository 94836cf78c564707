// Character-level scanners for the output boundary: the NUL, PEM and local-path rules on one
// string, whether it looks like JSON, and the duplicate-key scan of JSON text. Pure; used only by
// boundary.ts. ASCII and Latin text is read as it is (it holds no invisible character but U+00AD);
// other text is read cleaned (format.ts). Strings up to 1 KiB and Latin text get one JS pass (no
// native call per string); longer ASCII gets native indexOf jumps.
import { asciiSpaces, foldForMatch, hasDashRun, hasNonAscii, isSpace, removeInvisible } from "./format.ts";
import { hasLocalPath, type Roots } from "./paths.ts";
import { skeleton } from "./skeleton.ts";

export type TextRule = "nul" | "pem" | "local_path";

/**
 * ASCII strings up to this many UTF-16 units take the single JS pass; longer ones, where native indexOf wins, take
 * the jumps.
 */
export const ONE_PASS_MAX = 1024;

/** What the one pass notes below U+0080, as bits: a `/`, a `:`, a `-`; and NUL, which ends it. */
const SLASH = 1;
const COLON = 2;
const DASH = 4;
const NUL = 8;
const WATCH = new Uint8Array(128);
WATCH[47] = SLASH;
WATCH[58] = COLON;
WATCH[45] = DASH;
WATCH[0] = NUL;

/**
 * A private-key BEGIN marker: four or five dashes, BEGIN, any label, PRIVATE KEY, case-insensitive.
 * The label may not contain `-`, so a certificate's `-----END CERTIFICATE-----` cannot run into
 * later prose. Matched in the folded reading (invisible characters removed, each whitespace run one
 * space) and in its confusable skeleton, where `I` reads `l`: so each `I` may be any of `I l 1 |`
 * (their skeleton; for ASCII this one pattern covers both readings) and the label may hold `|`.
 */
const PEM_BEGIN = /----[ ]?BEG[Il1|]N[ ][\w| ]{0,64}?PR[Il1|]VATE[ ]KEY/i;

/** The PEM rule on ASCII text that holds four dashes in a row. */
const asciiPem = (t: string): boolean => PEM_BEGIN.test(t.replace(/\s+/g, " "));

/**
 * The PEM rule on cleaned text outside ASCII: the folded reading, then its skeleton (U+2010 dashes, a Cyrillic `Р`).
 */
function cleanPem(t: string): boolean {
  if (!hasDashRun(t)) return false;
  const folded = foldForMatch(t);
  return PEM_BEGIN.test(folded) || PEM_BEGIN.test(foldForMatch(skeleton(folded)));
}

/**
 * The text JSON.parse is given for a JSON-looking string: cleaned, wide whitespace as spaces, trimmed (a BOM is
 * invisible).
 */
export const jsonText = (s: string): string => (hasNonAscii(s) ? asciiSpaces(removeInvisible(s)) : s).trim();

/** Does the (readable) text, once its whitespace is skipped, start with `{`, `[` or `"`? */
export function startsLikeJson(t: string): boolean {
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (!isSpace(c)) return c === 123 || c === 91 || c === 34;
  }
  return false;
}

/**
 * The first rule the readable text t breaks, by precedence nul > pem > local_path; null when
 * clean. `roots` null skips the path rule; `nulOrPem` false is the caller's proof that no ASCII
 * string of this result holds a NUL or four dashes (see mayHoldNulOrPem).
 */
function readingRule(t: string, ascii: boolean, roots: Roots | null, nulOrPem: boolean): TextRule | null {
  if (nulOrPem && t.indexOf("\0") !== -1) return "nul";
  if (ascii ? nulOrPem && t.indexOf("----") !== -1 && asciiPem(t) : cleanPem(t)) return "pem";
  if (roots !== null && hasLocalPath(t, roots)) return "local_path";
  return null;
}

/** The text rules on a string read as text (not as JSON), whatever it starts with. */
export function textRule(s: string, roots: Roots | null): TextRule | null {
  const ascii = !hasNonAscii(s);
  return readingRule(ascii ? s : removeInvisible(s), ascii, roots, true);
}

/**
 * "json" for a string that looks like JSON (the caller parses it, and reads it as text only when
 * that fails); otherwise the first text rule it breaks, or null.
 */
export function scanText(s: string, roots: Roots | null, nulOrPem: boolean): TextRule | "json" | null {
  if (s.length <= ONE_PASS_MAX || hasNonAscii(s)) {
    const verdict = shortAsciiRule(s, roots);
    if (verdict !== NON_ASCII) return verdict;
  } else {
    return startsLikeJson(s) ? "json" : readingRule(s, true, roots, nulOrPem);
  }
  const t = removeInvisible(s);
  return startsLikeJson(t) ? "json" : readingRule(t, false, roots, nulOrPem);
}

/** shortAsciiRule's answer for a string with a character outside ASCII: the caller reads it cleaned. */
export const NON_ASCII = "non_ascii";

/**
 * One pass over a short string: NON_ASCII at its first character that needs the cleaned reading;
 * "json" when its first non-space character is `{`, `[` or `"`; else nul > pem > local_path. The
 * pass only notes which of `/ : -` occur (one table load a character); the PEM regex runs only
 * where four dashes stand in a row, the path reading only where a `/` or `:` occurs. Below U+02D7 (Latin-1 and
 * Latin Extended) only U+00AD is invisible, only
 * NEL and NBSP are whitespace and no character is dash-like, so such text is read here too; it
 * leaves this pass at the first character from U+02D7 on, at U+00AD and NEL.
 */
export function shortAsciiRule(s: string, roots: Roots | null): TextRule | "json" | null | typeof NON_ASCII {
  const n = s.length;
  let i = 0;
  // Every read stays inside the string: a NaN from past its end would make the JIT's int
  // speculation on the char codes fail, and the pass be recompiled slower.
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c !== 32 && (c < 9 || c > 13)) break;
  }
  if (i < n) {
    const first = s.charCodeAt(i);
    if (first === 123 || first === 91 || first === 34) return "json"; // jsonText cleans what needs it
    if (first === 0xa0 || first === 0x85) return NON_ASCII; // whitespace that may stand before JSON
  }
  let seen = 0;
  let latin = false;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128) {
      if (c >= 0x2d7 || c === 0xad || c === 0x85) return NON_ASCII;
      latin = true;
    } else {
      const watch = WATCH[c]!;
      if (watch === NUL) return "nul";
      seen |= watch;
    }
  }
  if ((seen & DASH) !== 0 && s.indexOf("----") !== -1 && (latin ? cleanPem(s) : asciiPem(s))) return "pem";
  if (
    roots !== null &&
    (seen & (SLASH | COLON)) !== 0 &&
    hasLocalPath(s, roots, (seen & SLASH) !== 0, (seen & COLON) !== 0)
  )
    return "local_path";
  return null;
}

/**
 * Can any ASCII string in a result hold a NUL or a PEM marker's dashes, judged from its compact
 * serialization? stringify writes a NUL as `\u0000` and dashes as they are; a JSON text nested in
 * a string can spell them only as `\u0000`, `-` or `\u002d`, which survive in the outer
 * serialization. So when none of `u0000`, `----`, `u002d` occurs, neither rule can fire on an
 * ASCII string at any nesting; a string with any other character is always read in full.
 */
export const mayHoldNulOrPem = (json: string): boolean => NUL_OR_DASHES.test(json);

/** One regex pass finds any of the four needles (about 4x faster on 64 KiB than four indexOf). */
const NUL_OR_DASHES = /u0000|----|u002[dD]/;
