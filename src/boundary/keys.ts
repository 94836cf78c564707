// The secret-key rule of the output boundary (SPEC "Boundary readings", Keys). Pure. Printable
// ASCII keys, nearly all of them, take a char-code path with the same result as the normalising one.
import { foldForMatch } from "./format.ts";

/** The seed's list plus `apikey`, the one deliberate addition. Compared by equality or suffix. */
export const SECRET_KEY_SUFFIXES: readonly string[] = [
  "secret", "password", "passwd", "token", "access_token", "refresh_token", "api_key", "apikey",
  "authorization", "cookie", "private_key", "privatekey", "credential_path", "secret_path", "key_path",
];

/** Suffixes grouped by their last char code, so most keys are settled by one lookup. */
const BY_LAST_CHAR = new Map<number, string[]>();
for (const suffix of SECRET_KEY_SUFFIXES) {
  const last = suffix.charCodeAt(suffix.length - 1);
  BY_LAST_CHAR.set(last, [...(BY_LAST_CHAR.get(last) ?? []), suffix]);
}

/**
 * The SPEC's normalisation: NFKC, format characters (Cf) removed and each whitespace run folded
 * to one space (so `to\u200bken` and `private \n key` are caught), toLowerCase, trim, then `-`
 * and the space → `_`.
 */
export function normalizeKey(key: string): string {
  return foldForMatch(key.normalize("NFKC")).toLowerCase().trim().replace(/[\s-]/g, "_");
}

/** True when the normalised key equals or ends with a listed name (no word boundary). */
export function isSecretKey(key: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    // Non-ASCII may hold format characters or NFKC forms; whitespace may come in runs to fold.
    if (c > 127 || c <= 32) return slowIsSecretKey(key);
  }
  return asciiIsSecretKey(key);
}

function slowIsSecretKey(key: string): boolean {
  const n = normalizeKey(key);
  return SECRET_KEY_SUFFIXES.some((suffix) => n.endsWith(suffix));
}

function isAsciiSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** ASCII only: NFKC is the identity, lowercase is `| 32` on A–Z, trim drops \t\n\v\f\r and space. */
function asciiIsSecretKey(key: string): boolean {
  let end = key.length;
  while (end > 0 && isAsciiSpace(key.charCodeAt(end - 1))) end--;
  if (end === 0) return false;
  const candidates = BY_LAST_CHAR.get(folded(key.charCodeAt(end - 1)));
  if (candidates === undefined) return false;
  for (const suffix of candidates) {
    const start = end - suffix.length;
    if (start < 0) continue;
    let i = 0;
    while (i < suffix.length && folded(key.charCodeAt(start + i)) === suffix.charCodeAt(i)) i++;
    if (i === suffix.length) return true;
  }
  return false;
}

/** One ASCII char code as the normalisation leaves it. */
function folded(c: number): number {
  if (c >= 65 && c <= 90) return c + 32;
  if (c === 45 || isAsciiSpace(c)) return 95;
  return c;
}
