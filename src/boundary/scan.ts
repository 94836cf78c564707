// Character-level scanners for the output boundary: the NUL, PEM and local-path rules on one
// string, and the duplicate-key scan of JSON text. Pure; used only by boundary.ts. Short strings
// get one JS pass (no native-call overhead per string); long ones get native indexOf jumps.
// Format characters (Cf) are transparent: they neither split a dash run nor start a token.
import { foldForMatch, formatEndsAt, formatLength, hasFormat, stripFormat } from "./format.ts";

export type TextRule = "nul" | "pem" | "local_path";

/** Strings up to this many UTF-16 units take the single JS pass; longer ones, where native indexOf wins, take the jumps. */
export const SHORT_TEXT = 96;

/**
 * A private-key BEGIN marker: four or five dashes, BEGIN, any label, PRIVATE KEY. The label may
 * not contain `-`, so a certificate's `-----END CERTIFICATE-----` cannot run into later prose.
 * Matched in the folded reading (format characters removed, each whitespace run one space), so
 * `BEGIN PRI\u200bVATE KEY` and a newline or NBSP between the words are caught.
 */
const PEM_BEGIN = /----[ ]?BEGIN[ ][\w ]{0,64}?PRIVATE[ ]KEY/i;

/** The PEM rule on one string whose dashes already suggested a marker. */
const hasPemBegin = (s: string): boolean => PEM_BEGIN.test(foldForMatch(s));

/** JavaScript `\s` (what the SPEC splits path tokens on), as a char-code test. */
export function isSpace(c: number): boolean {
  if (c <= 32) return c === 32 || (c >= 9 && c <= 13);
  if (c < 160) return false;
  return (
    c === 160 || c === 5760 || (c >= 8192 && c <= 8202) || c === 8232 || c === 8233 ||
    c === 8239 || c === 8287 || c === 12288 || c === 65279
  );
}

/** Opening punctuation and quotes stripped from the front of a path token: ( [ { < " ' ` */
function isOpener(c: number): boolean {
  return c === 40 || c === 91 || c === 123 || c === 60 || c === 34 || c === 39 || c === 96;
}

const FILE_SCHEME = [102, 105, 108, 101, 58]; // f i l e :

/** `file:` in any letter case at i, format characters between its letters skipped. */
function isFileScheme(s: string, i: number): boolean {
  if ((s.charCodeAt(i) | 32) !== 102) return false;
  let j = i + 1;
  for (let k = 1; k < FILE_SCHEME.length; k++) {
    for (let f = formatLength(s, j); f !== 0; f = formatLength(s, j)) j += f;
    const c = s.charCodeAt(j++);
    if ((k === 4 ? c : c | 32) !== FILE_SCHEME[k]) return false;
  }
  return true;
}

/** Where a `file:` ending at the colon p begins (format characters skipped), or -1. */
function fileSchemeBefore(s: string, p: number): number {
  let q = p - 1;
  for (let k = 3; k >= 0; k--) {
    for (let f = q >= 0 ? formatEndsAt(s, q) : 0; f !== 0; f = q >= 0 ? formatEndsAt(s, q) : 0) q -= f;
    if (q < 0 || (s.charCodeAt(q) | 32) !== FILE_SCHEME[k]) return -1;
    if (k > 0) q--;
  }
  return q;
}

/** A path character (SPEC "Path tokens"): a letter or digit (any script), `.`, `_`, `~`, `-`, `$`, `@`, `%` or `+`. */
function isPathChar(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c < 128) {
    const l = c | 32;
    return (l >= 97 && l <= 122) || (c >= 48 && c <= 57) || c === 46 || c === 95 || c === 126 || c === 45 || c === 36 || c === 64 || c === 37 || c === 43;
  }
  return LETTER_OR_DIGIT.test(String.fromCodePoint(s.codePointAt(i)!));
}
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

/** `/dev/null`, then only closing or sentence punctuation to the token's end: not sensitive. */
const DEV_NULL = /^\/dev\/null[)\]}>"'`.,;:!?]*$/;

/**
 * Is the token starting with the `/` at p a local path? After its leading slashes (format
 * characters skipped) a path character must follow, so `/`, `//`, `/*` and `/ b` are prose or
 * comments while `//etc/passwd` is a path; `/dev/null` alone is not sensitive.
 */
function slashPathAt(s: string, p: number): boolean {
  let i = p;
  for (;;) {
    if (s.charCodeAt(i) === 47) i++;
    else {
      const f = i < s.length ? formatLength(s, i) : 0;
      if (f === 0) break;
      i += f;
    }
  }
  if (i >= s.length || !isPathChar(s, i)) return false;
  // Only `/d…` (or a format character hiding what follows) can read as /dev/null.
  const next = s.charCodeAt(p + 1);
  if (next !== 100 && !(next >= 0xad && formatLength(s, p + 1) !== 0)) return true;
  let end = i;
  while (end < s.length && !isSpace(s.charCodeAt(end))) end++;
  return !DEV_NULL.test(stripFormat(s.slice(p, end)));
}

/** The first rule the string breaks, by precedence nul > pem > local_path; null when clean. */
export function textRule(s: string, localPaths: boolean): TextRule | null {
  return s.length <= SHORT_TEXT ? shortTextRule(s, localPaths) : longTextRule(s, localPaths);
}

/**
 * textRule, then "json" for a clean string that starts like JSON. `nulOrPem` false is the
 * caller's proof that no string of this result can hold a NUL or a PEM marker (see
 * mayHoldNulOrPem), which leaves one path scan that also notes the first non-space char.
 */
export function scanText(s: string, localPaths: boolean, nulOrPem: boolean): TextRule | "json" | null {
  if (nulOrPem || !localPaths) {
    const rule = nulOrPem ? textRule(s, localPaths) : hasFormat(s) ? pemRule(s) : null;
    if (rule !== null) return rule;
    return startsLikeJson(s) ? "json" : null;
  }
  if (s.length > SHORT_TEXT) {
    // A format character may split a PEM marker's dashes, which the caller's gate cannot see.
    if (hasFormat(s)) return textRule(s, true) ?? (startsLikeJson(s) ? "json" : null);
    if (hasLocalPathToken(s)) return "local_path";
    return startsLikeJson(s) ? "json" : null;
  }
  let tokenStart = true;
  let first = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (tokenStart) {
      if (isSpace(c)) continue;
      if (first < 0) first = c;
      if (isOpener(c)) continue;
      if ((c === 47 && slashPathAt(s, i)) || ((c | 32) === 102 && isFileScheme(s, i))) return "local_path";
      // A format character may hide what follows it (a path, a split marker): the full check.
      if (c >= 0xad && formatLength(s, i) !== 0) return textRule(s, true) ?? (startsLikeJson(s) ? "json" : null);
      tokenStart = false;
    } else if (c <= 32) {
      if (c === 32 || (c >= 9 && c <= 13)) tokenStart = true;
    } else if (c >= 160) {
      if (isSpace(c)) tokenStart = true;
      else if (formatLength(s, i) !== 0) return textRule(s, true) ?? (first === 123 || first === 91 || first === 34 ? "json" : null);
    }
  }
  return first === 123 || first === 91 || first === 34 ? "json" : null;
}

/**
 * Can any string in a result hold a NUL or a PEM marker, judged from its compact serialization?
 * stringify writes a NUL as `\u0000` and dashes as they are; a JSON text nested in a string can
 * spell them only as `\u0000`, `-` or `\u002d`, which survive in the outer serialization. So
 * when none of `u0000`, `----`, `u002d` occurs, neither rule can fire at any nesting, except
 * for dashes split by format characters: scanText checks every string holding one in full.
 */
export function mayHoldNulOrPem(json: string): boolean {
  return ["u0000", "----", "u002d", "u002D"].some((needle) => json.indexOf(needle) !== -1);
}

/** The PEM rule alone, for a string holding format characters that the dash gate could not see. */
const pemRule = (s: string): TextRule | null => (hasPemBegin(s) ? "pem" : null);

/** One pass over the characters; the PEM regex runs only when four dashes in a row were seen. */
export function shortTextRule(s: string, localPaths: boolean): TextRule | null {
  let dashes = 0;
  let maybePem = false;
  let path = false;
  let tokenStart = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) return "nul";
    if (c === 45) {
      if (++dashes === 4) maybePem = true;
      tokenStart = false;
      continue;
    }
    if (c >= 0xad) {
      const f = formatLength(s, i);
      if (f !== 0) {
        i += f - 1;
        continue;
      }
    }
    dashes = 0;
    if (isSpace(c)) {
      tokenStart = true;
    } else if (tokenStart) {
      if (isOpener(c)) continue;
      if (localPaths && ((c === 47 && slashPathAt(s, i)) || ((c | 32) === 102 && isFileScheme(s, i)))) path = true;
      tokenStart = false;
    }
  }
  if (maybePem && hasPemBegin(s)) return "pem";
  return path ? "local_path" : null;
}

/** Native jumps: indexOf for NUL and dashes, then every `/` and `:` is checked for a token start. */
export function longTextRule(s: string, localPaths: boolean): TextRule | null {
  if (s.indexOf("\0") !== -1) return "nul";
  if ((s.indexOf("----") !== -1 || hasFormat(s)) && hasPemBegin(s)) return "pem";
  if (localPaths && hasLocalPathToken(s)) return "local_path";
  return null;
}

function hasLocalPathToken(s: string): boolean {
  for (let p = s.indexOf("/"); p !== -1; p = s.indexOf("/", p + 1)) {
    if (startsToken(s, p) && slashPathAt(s, p)) return true;
  }
  for (let p = s.indexOf(":", 4); p !== -1; p = s.indexOf(":", p + 1)) {
    const start = fileSchemeBefore(s, p);
    if (start >= 0 && startsToken(s, start)) return true;
  }
  return false;
}

/** True when only opening punctuation and format characters lie between p and the previous whitespace (or the start). */
function startsToken(s: string, p: number): boolean {
  let q = p - 1;
  for (;;) {
    if (q < 0) return true;
    if (isOpener(s.charCodeAt(q))) q--;
    else {
      const f = formatEndsAt(s, q);
      if (f === 0) return isSpace(s.charCodeAt(q));
      q -= f;
    }
  }
}

/** Does the string, once trimmed (BOM included, it is JS whitespace), start with `{`, `[` or `"`? */
export function startsLikeJson(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!isSpace(c)) return c === 123 || c === 91 || c === 34;
  }
  return false;
}

/** A path segment found by the duplicate-key scan: an array index or an object key with its position. */
export type Segment = number | { key: string; index: number };

interface Frame {
  keys: Set<string> | null; // null for an array
  count: number; // keys seen (object) or commas seen, i.e. the current index (array)
  key: string; // the current key of an object frame
}

/**
 * The path of the first object key that repeats within one object of `text`, or null.
 * `text` must already be known to be valid JSON (JSON.parse accepted it): the scan trusts the
 * grammar and only tracks strings, containers and commas. The scan is iterative, so text nested
 * deeper than any call stack is fine.
 */
export function findDuplicateKey(text: string): Segment[] | null {
  const stack: Frame[] = [];
  let top: Frame | undefined;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const end = closingQuote(text, i);
      if (top !== undefined && top.keys !== null && expectKey) {
        const raw = text.slice(i + 1, end);
        const key = raw.indexOf("\\") === -1 ? raw : (JSON.parse(text.slice(i, end + 1)) as string);
        if (top.keys.has(key)) return pathOf(stack, key, top.count);
        top.keys.add(key);
        top.key = key;
        top.count++;
        expectKey = false;
      }
      i = end;
    } else if (c === 123 || c === 91) {
      top = { keys: c === 123 ? new Set() : null, count: 0, key: "" };
      stack.push(top);
      expectKey = c === 123;
    } else if (c === 125 || c === 93) {
      stack.pop();
      top = stack[stack.length - 1];
    } else if (c === 44 && top !== undefined) {
      if (top.keys === null) top.count++;
      else expectKey = true;
    }
  }
  return null;
}

/** Index of the quote that closes the string literal opening at i (an even run of backslashes before it). */
function closingQuote(text: string, i: number): number {
  let end = text.indexOf('"', i + 1);
  for (;;) {
    let b = end - 1;
    while (text.charCodeAt(b) === 92) b--;
    if ((end - 1 - b) % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

function pathOf(stack: Frame[], duplicate: string, index: number): Segment[] {
  const path: Segment[] = [];
  for (let d = 0; d < stack.length - 1; d++) {
    const f = stack[d]!;
    path.push(f.keys === null ? f.count : { key: f.key, index: f.count - 1 });
  }
  path.push({ key: duplicate, index });
  return path;
}
