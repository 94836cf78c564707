import { describe, expect, test } from "bun:test";
import {
  asciiSpaces,
  DASH_LIKE,
  foldForMatch,
  hasDashRun,
  isSpace,
  removeInvisible,
} from "../../src/boundary/format.ts";
import { ASCII_PROTOTYPES, skeleton } from "../../src/boundary/skeleton.ts";

/** The package's table (the package itself runs one large regex per call: too slow for every code point). */
const TABLE = require("unhomoglyph/data.json") as Record<string, string>;
const prototypes = (s: string) => [...s].map((c) => TABLE[c] ?? c).join("");

describe("whitespace", () => {
  test("isSpace is Unicode White_Space for every UTF-16 code unit (NEL, U+2028, U+2029 in; U+FEFF out)", () => {
    const mismatches: string[] = [];
    for (let c = 0; c <= 0xffff; c++)
      if (isSpace(c) !== /\p{White_Space}/u.test(String.fromCharCode(c))) mismatches.push(c.toString(16));
    expect(mismatches).toEqual([]);
  });

  test("asciiSpaces turns exactly the White_Space characters outside ASCII into spaces", () => {
    for (let c = 0x80; c <= 0xffff; c++) {
      const s = String.fromCharCode(c);
      if (c >= 0xd800 && c <= 0xdfff) continue;
      expect([c, asciiSpaces(s)]).toEqual([c, isSpace(c) ? " " : s]);
    }
  });
});

describe("invisible characters", () => {
  test.each([
    ["to\u200bken", "token"],
    ["pass\u00adword", "password"],
    ["tok\u{E0020}en", "token"],
    ["\ufeffa\u202eb", "ab"],
    ["token\u034f", "token"],
    ["token\ufe0f", "token"],
    ["token\u{E0100}", "token"],
    ["token\u3164", "token"],
    ["\u115f\u1160x\uffa0", "x"],
    ["secre\u0332t", "secret"],
    ["token\u20dd", "token"],
    ["a\u180bb\u17b4c", "abc"],
    ["e\u0301", "e"],
    ["\u0600x", "x"],
    ["é", "é"],
    ["привет", "привет"],
    ["a\u00a0b\u0085c", "a\u00a0b\u0085c"],
  ])("removeInvisible(%j) is %j", (input, out) => expect(removeInvisible(input)).toBe(out));

  test.each([
    ["BEGIN\n\n PRI\u200bVATE\u00a0KEY", "BEGIN PRIVATE KEY"],
    ["a \u200b b", "a b"],
    ["BEGIN\u0085PRIVATE\u2028\u2029KEY", "BEGIN PRIVATE KEY"],
  ])("foldForMatch(%j) is %j", (input, out) => expect(foldForMatch(input)).toBe(out));
});

describe("Latin text below U+02D7 (read in one pass, not cleaned)", () => {
  test("holds no invisible character but U+00AD, no whitespace but NEL and NBSP, no dash look-alike", () => {
    const odd: string[] = [];
    for (let c = 0x80; c < 0x2d7; c++) {
      const s = String.fromCharCode(c);
      if ((removeInvisible(s) === "") !== (c === 0xad) || isSpace(c) !== (c === 0x85 || c === 0xa0) || DASH_LIKE.has(c))
        odd.push(c.toString(16));
    }
    expect(odd).toEqual([]);
  });
});

describe("look-alikes", () => {
  test("DASH_LIKE is every character whose NFKC form or skeleton holds a dash", () => {
    const found: number[] = [];
    for (let c = 0; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const s = String.fromCodePoint(c);
      const nfkc = s.normalize("NFKC");
      if ([nfkc, prototypes(s), prototypes(nfkc), prototypes(s.normalize("NFD"))].some((x) => x.includes("-")))
        found.push(c);
    }
    expect(found.map((c) => c.toString(16))).toEqual([...DASH_LIKE].sort((a, b) => a - b).map((c) => c.toString(16)));
  });

  test.each([
    ["----", true],
    ["\u2010\u2011\u2212\uff0d", true],
    ["--\u2013-", true],
    ["--- -", false],
    ["\u2014\u2014\u2014\u2014", false],
  ])("hasDashRun(%j) is %p", (input, out) => expect(hasDashRun(input)).toBe(out));

  test("skeleton reads the table as the package's own function applies it", () => {
    const pkg = require("unhomoglyph") as (s: string) => string;
    const sample = `${Object.keys(TABLE)
      .filter((_, i) => i % 7 === 0)
      .join(" ")} plain ASCII, 0 1 I | m`;
    expect(prototypes(sample)).toBe(pkg(sample));
    const uts39 = (s: string) => removeInvisible(pkg(s.normalize("NFKC").normalize("NFD")).normalize("NFD"));
    for (const word of sample.split(" ")) expect([word, skeleton(`${word}é`)]).toEqual([word, uts39(`${word}é`)]);
  });

  test("ASCII_PROTOTYPES is the package's table for ASCII", () => {
    const table: Record<string, string> = {};
    for (let c = 0; c < 128; c++) {
      const s = String.fromCharCode(c);
      if (prototypes(s) !== s) table[s] = prototypes(s);
    }
    expect(table).toEqual({ ...ASCII_PROTOTYPES });
  });

  test.each([
    ["t\u043eken", "token"],
    ["\u0420RIVATE", "PRlVATE"],
    ["\u2010\u2010", "--"],
    ["ｔｏｋｅｎ", "token"],
    ["rn0I|", "rnOll"],
    ["plain", "plain"],
    ["pr\u00edvate", "private"],
  ])("skeleton(%j) is %j", (input, out) => expect(skeleton(input)).toBe(out));
});
