import { describe, expect, test } from "bun:test";
import { escapeControl, jsonForTerminal } from "../../src/result/escape.ts";

describe("jsonForTerminal", () => {
  test.each([
    [{ a: "x\u001b]52;c;Zm9v\u0007" }, '{"a":"x\\u001b]52;c;Zm9v\\u0007"}'],
    [
      { a: "del\u007f c1\u009b bidi\u202e\u2066 ls\u2028" },
      '{"a":"del\\u007f c1\\u009b bidi\\u202e\\u2066 ls\\u2028"}',
    ],
    [{ a: "ünïcödé ✅" }, '{"a":"ünïcödé ✅"}'],
  ])("%j", (value, text) => {
    expect(jsonForTerminal(value)).toBe(text);
    expect(JSON.parse(jsonForTerminal(value))).toEqual(value);
  });

  test("undefined prints nothing", () => {
    expect(jsonForTerminal(undefined)).toBe("");
  });
});

test("escapeControl leaves no character a terminal acts on", () => {
  const all = `${Array.from({ length: 0x250 }, (_, i) => String.fromCharCode(i)).join("")}\u061c\u200e\u200f\u2028\u2029\u202a\u202e\u2066\u2069`;
  expect(escapeControl(all)).not.toMatch(
    /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/,
  );
});
