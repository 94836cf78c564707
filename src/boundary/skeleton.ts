// The confusable skeleton (Unicode UTS #39) that keys and PEM markers are also compared by
// (docs/boundary.md), so a Cyrillic `tоken` is a key. The prototypes come from the
// unhomoglyph package (Unicode's confusables.txt 13.0), loaded on first use: only text with a
// character outside ASCII needs it. Its ASCII part is written out here, so ASCII text never loads
// it (test/boundary/skeleton.test.ts checks the two agree).
import { removeInvisible } from "./format.ts";

/** The ASCII characters confusables.txt gives another prototype (every other ASCII character is its own). */
export const ASCII_PROTOTYPES: Readonly<Record<string, string>> = {
  "0": "O",
  "1": "l",
  I: "l",
  "|": "l",
  m: "rn",
  "`": "'",
  '"': "''",
  "%": "º/₀",
};
const ASCII_CONFUSABLE = /[01I|m`"%]/g;

/** The package's table (one code point → its prototype), read at the first use. */
let table: Readonly<Record<string, string>> | undefined;

/**
 * Each character's prototype, as the package's own function gives it. That function builds one
 * regex of 6,300 alternatives at its first call (about 35 ms); every key of the table is a single
 * code point, so a lookup per character gives the same (test/boundary/format.test.ts checks it).
 */
function prototypes(s: string): string {
  table ??= require("unhomoglyph/data.json") as Record<string, string>;
  let out = "";
  for (const c of s) out += table[c] ?? c;
  return out;
}

/**
 * UTS #39's skeleton (NFD, each character's prototype, NFD) of the NFKC form, invisible characters
 * and combining marks removed again afterwards (a prototype or NFD may bring marks back).
 */
export function skeleton(s: string): string {
  if (!/[^\x00-\x7f]/.test(s)) return s.replace(ASCII_CONFUSABLE, (c) => ASCII_PROTOTYPES[c]!);
  return removeInvisible(prototypes(s.normalize("NFKC").normalize("NFD")).normalize("NFD"));
}
