import { describe, expect, test } from "bun:test";
import { foldForMatch, formatEndsAt, formatLength, stripFormat } from "../../src/boundary/format.ts";

describe("format characters", () => {
  test("formatLength agrees with \\p{Cf} for every code point", () => {
    const cf = /^\p{Cf}$/u;
    const wrong: string[] = [];
    for (let c = 0; c <= 0x10ffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const s = String.fromCodePoint(c);
      const want = cf.test(s) ? s.length : 0;
      if (formatLength(s, 0) !== want || formatEndsAt(s, s.length - 1) !== want) wrong.push(c.toString(16));
    }
    expect(wrong).toEqual([]);
  });

  test("a lone surrogate is not a format character", () => {
    expect(formatLength("\udb40", 0)).toBe(0);
    expect(formatEndsAt("\udc20", 0)).toBe(0);
  });

  test.each([
    ["to\u200bken", "token"],
    ["pass\u00adword", "password"],
    ["tok\u{E0020}en", "token"],
    ["\ufeffa\u202eb", "ab"],
  ])("stripFormat(%j) is %j", (input, out) => expect(stripFormat(input)).toBe(out));

  test.each([
    ["BEGIN\n\n PRI\u200bVATE\u00a0KEY", "BEGIN PRIVATE KEY"],
    ["a \u200b b", "a b"],
  ])("foldForMatch(%j) is %j", (input, out) => expect(foldForMatch(input)).toBe(out));
});
