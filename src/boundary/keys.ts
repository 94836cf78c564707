// The secret-key rule of the output boundary (docs/boundary.md). Pure. A key is read
// twice, as it is and by its confusable skeleton; printable ASCII keys, nearly all of them, take a
// char-code path with the same result as the normalising one.
import { foldForMatch, removeInvisible } from "./format.ts";
import { skeleton } from "./skeleton.ts";

/** The documented list plus `apikey`, the one deliberate addition. Compared by equality or suffix. */
export const SECRET_KEY_SUFFIXES: readonly string[] = [
  "secret",
  "password",
  "passwd",
  "token",
  "access_token",
  "refresh_token",
  "api_key",
  "apikey",
  "authorization",
  "cookie",
  "private_key",
  "privatekey",
  "credential_path",
  "secret_path",
  "key_path",
];

/**
 * The names as the skeleton reading compares them: a skeleton keeps `i` but turns `I` into `l`,
 * and keys are read without case, so that reading takes `i` for `l` on both sides.
 */
const SKELETON_SUFFIXES: readonly string[] = SECRET_KEY_SUFFIXES.map((suffix) => suffix.replace(/i/g, "l"));

/** Names grouped by their last char code, so most keys are settled by one lookup. */
function byLastChar(suffixes: readonly string[]): ReadonlyMap<number, string[]> {
  const map = new Map<number, string[]>();
  for (const suffix of suffixes) {
    const last = suffix.charCodeAt(suffix.length - 1);
    map.set(last, [...(map.get(last) ?? []), suffix]);
  }
  return map;
}
const SKELETON_BY_LAST = byLastChar(SKELETON_SUFFIXES);

/**
 * The documented reading of a key: invisible characters and combining marks removed, NFKC (then
 * removed again: NFKC may bring marks), each whitespace run one space (so `to\u200bken` and
 * `private \n key` are caught), toLowerCase, trim, then `-` and the space → `_`.
 */
export function normalizeKey(key: string): string {
  return lowKey(foldForMatch(removeInvisible(key).normalize("NFKC")));
}

/**
 * The same reading of the key's confusable skeleton, `i` read as `l` (a Cyrillic `tоken` reads `token`, a Greek
 * `ΑPI_KEY` `apl_key`).
 */
export const keySkeleton = (key: string): string =>
  lowKey(foldForMatch(skeleton(foldForMatch(removeInvisible(key).normalize("NFKC"))))).replace(/i/g, "l");

const lowKey = (folded: string): string => folded.toLowerCase().trim().replace(/[ -]/g, "_");

/** True when either reading of the key equals or ends with a listed name (no word boundary). */
export function isSecretKey(key: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    // Non-ASCII may hold invisible characters, NFKC forms or look-alikes; whitespace may come in runs to fold.
    if (c > 127 || c <= 32) return slowIsSecretKey(key);
  }
  // For ASCII the skeleton reading holds the plain one: each char that reads as a name's char
  // as it is also does by skeleton (`I`, `i` → l on both sides), so one pass decides.
  return asciiIsSecretKey(key);
}

function slowIsSecretKey(key: string): boolean {
  const plain = normalizeKey(key);
  if (SECRET_KEY_SUFFIXES.some((suffix) => plain.endsWith(suffix))) return true;
  const skel = keySkeleton(key);
  return SKELETON_SUFFIXES.some((suffix) => skel.endsWith(suffix));
}

function isAsciiSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** ASCII only: NFKC is the identity, lowercase is `| 32` on A–Z, trim drops \t\n\v\f\r and space. */
function asciiIsSecretKey(key: string): boolean {
  let end = key.length;
  while (end > 0 && isAsciiSpace(key.charCodeAt(end - 1))) end--;
  if (end === 0) return false;
  const candidates = SKELETON_BY_LAST.get(skeletonFolded(key.charCodeAt(end - 1)));
  if (candidates === undefined) return false;
  for (const suffix of candidates) {
    const start = end - suffix.length;
    if (start < 0) continue;
    let i = 0;
    while (i < suffix.length && skeletonFolded(key.charCodeAt(start + i)) === suffix.charCodeAt(i)) i++;
    if (i === suffix.length) return true;
  }
  return false;
}

/** One ASCII char code as the plain reading leaves it. */
function folded(c: number): number {
  if (c >= 65 && c <= 90) return c + 32;
  if (c === 45 || isAsciiSpace(c)) return 95;
  return c;
}

/**
 * One ASCII char code as the skeleton reading leaves it (skeleton.ts ASCII_PROTOTYPES, lowercase,
 * `i` as `l`): `0` → o; `1`, `I`, `i` and `|` → l. The prototypes of more than one char (`m` → rn,
 * quotes, `%`) hold no run that ends a listed name, so they may stay as they are here.
 */
function skeletonFolded(c: number): number {
  if (c === 48) return 111;
  if (c === 49 || c === 73 || c === 105 || c === 124) return 108;
  return folded(c);
}
