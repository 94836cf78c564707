import { describe, expect, test } from "bun:test";
import { previewArgs, REDACTED, redactText, redactValue, StreamRedactor } from "../../src/boundary/redact.ts";

const R = REDACTED;

describe("redactText", () => {
  test.each([
    ["one secret", "key=s3cr3t!", ["s3cr3t"], `key=${R}!`],
    ["every occurrence", "s3cr3t s3cr3t", ["s3cr3t"], `${R} ${R}`],
    ["several secrets", "u=alice p=hunter22", ["alice", "hunter22"], `u=${R} p=${R}`],
    ["a secret inside a longer one is covered whole", "tok=abcd1234", ["abcd", "abcd1234"], `tok=${R}`],
    ["overlapping secrets become one marker", "xabcdefx", ["abcd", "cdef"], `x${R}x`],
    ["touching secrets become one marker", "abcdwxyz", ["abcd", "wxyz"], R],
    ["a self-overlapping secret is covered whole", "aaaaaa!", ["aaaa"], `${R}!`],
    ["short and empty values are not redacted", "abc and ab", ["abc", "", "ab"], "abc and ab"],
    ["no secrets", "plain", [], "plain"],
    ["secrets with regex characters", "a.*b(c) a.*b(c)", ["a.*b(c)"], `${R} ${R}`],
  ] as const)("%s", (_name, text, secrets, expected) => {
    expect(redactText(text, secrets)).toBe(expected);
  });
});

describe("a secret's encoded forms", () => {
  const S = "hunter2-Secret!";
  test.each([
    ["base64 at offset 0", "aHVudGVyMi1TZWNyZXQh", R],
    ["base64 at offset 1 (the chars shared with a neighbour stay)", "eGh1bnRlcjItU2VjcmV0IQ==", `eG${R}Q==`],
    ["base64 at offset 2", "eHlodW50ZXIyLVNlY3JldCE=", `eHl${R}E=`],
    ["base64 at offset 3, a newline after", "eHl6aHVudGVyMi1TZWNyZXQhCg==", `eHl6${R}Cg==`],
    ["base64url at offset 1", "eGh1bnRlcjItU2VjcmV0IT8_Pg", `eG${R}T8_Pg`],
    ["hex", "616268756e746572322d53656372657421", `6162${R}`],
    ["HEX", "68756E746572322D53656372657421", R],
    ["percent-encoded (encodeURIComponent)", "q%3Dhunter2-Secret!", `q%3D${R}`],
    ["percent-encoded (every byte, lower case)", "%68%75%6e%74%65%72%32%2d%53%65%63%72%65%74%21", R],
    ["percent-encoded (reserved chars)", "u=hunter2-Secret%21&x", `u=${R}&x`],
  ] as const)("%s", (_name, text, expected) => {
    expect(redactText(text, [S])).toBe(expected);
  });

  test.each([
    ["a space as + or %20", "a=pass+word%3F&b=pass%20word?", ["pass word?"], `a=${R}&b=${R}`],
    ["UTF-8 bytes of a character outside ASCII", "k=gr%C3%BCn-gr%c3%bcn", ["grün-grün"], `k=${R}`],
    ["a percent sign in the secret", "x=50%25off-50%off", ["50%off"], `x=${R}-${R}`],
    ["a near miss stays", "q=hunter2-Secret%22", ["hunter2-Secret!"], "q=hunter2-Secret%22"],
  ] as const)("percent-encoded: %s", (_name, text, secrets, expected) => {
    expect(redactText(text, secrets)).toBe(expected);
  });

  test("encodings shorter than 8 chars are not masked (a 4-byte secret keeps its base64, loses its hex)", () => {
    expect(redactText("YWJjZA== 61626364 abcd", ["abcd"])).toBe(`YWJjZA== ${R} ${R}`);
  });

  test("in values and the argument preview too", () => {
    expect(redactValue({ [`k-${Buffer.from(S).toString("hex")}`]: ["aHVudGVyMi1TZWNyZXQh"] }, [S])).toEqual({
      [`k-${R}`]: [R],
    });
    expect(previewArgs({ auth: "Basic dTpodW50ZXIyLVNlY3JldCE=" }, 240, [S])).toBe(`{"auth":"Basic dTp${R}E="}`);
  });
});

describe("StreamRedactor", () => {
  const cases: Array<[string, string[]]> = [
    ["begin s3cr3t-value end", ["s3cr3t-value"]],
    ["xx abcdefgh yy abcd zz", ["abcd", "abcdefgh"]],
    ["xabcdefx abcdwxyz", ["abcd", "cdef", "wxyz"]],
    ["aaaaaaaaaa!", ["aaaa"]],
    ["tokentoken", ["token"]],
    ["😀key1😀 key1", ["key1😀"]],
    ["nothing to see", ["absent-secret"]],
    ["a eHlodW50ZXIyLVNlY3JldCE= b 68756e746572322d53656372657421 c q=hunter2-Secret%21 d", ["hunter2-Secret!"]],
    ["%61%62%63%64 61626364 abcd", ["abcd"]],
  ];

  function run(secrets: string[], chunks: string[]): string[] {
    const redactor = new StreamRedactor(secrets);
    return [...chunks.map((c) => redactor.push(c)), redactor.flush()];
  }

  test.each(cases)("any split in two of %p matches the whole", (text, secrets) => {
    const whole = redactText(text, secrets);
    for (let i = 0; i <= text.length; i++) {
      expect([i, run(secrets, [text.slice(0, i), text.slice(i)]).join("")]).toEqual([i, whole]);
    }
  });

  test.each(cases)("any split in three of %p matches the whole", (text, secrets) => {
    const whole = redactText(text, secrets);
    for (let i = 0; i <= text.length; i++) {
      for (let j = i; j <= text.length; j++) {
        const chunks = [text.slice(0, i), text.slice(i, j), text.slice(j)];
        expect([i, j, run(secrets, chunks).join("")]).toEqual([i, j, whole]);
      }
    }
  });

  test("one char at a time matches the whole", () => {
    const text = "a=abcdefgh; b=abcd; c=cdefabcd".repeat(3);
    const secrets = ["abcd", "cdef", "abcdefgh"];
    expect(run(secrets, [...text]).join("")).toBe(redactText(text, secrets));
  });

  test("holds back at most the longest mask minus one char", () => {
    // Its longest form is every byte percent-encoded: 30 chars.
    const redactor = new StreamRedactor(["0123456789"]);
    expect(redactor.push("a".repeat(100))).toBe("a".repeat(71));
    expect(redactor.push("b")).toBe("a");
    expect(redactor.flush()).toBe(`${"a".repeat(28)}b`);
  });

  test("never emits half a surrogate pair", () => {
    const redactor = new StreamRedactor(["ab😀c"]);
    const outputs = [..."xy😀😀😀z"].map((c) => redactor.push(c));
    expect(outputs.every((o) => !/[\ud800-\udbff]$/.test(o))).toBe(true);
    expect(outputs.join("") + redactor.flush()).toBe("xy😀😀😀z");
  });

  test("passes text through untouched without usable secrets", () => {
    const redactor = new StreamRedactor(["", "abc"]);
    expect([redactor.push("abc"), redactor.push("def"), redactor.flush()]).toEqual(["abc", "def", ""]);
  });

  test("can be reused after a flush", () => {
    const redactor = new StreamRedactor(["secret1"]);
    expect([redactor.push("a secre"), redactor.flush(), redactor.push("t1 secret1"), redactor.flush()]).toEqual([
      "",
      "a secre",
      "",
      `t1 ${R}`,
    ]);
  });
});

describe("redactValue", () => {
  test("redacts strings at any depth, keys included", () => {
    const value = { ok: "x", nested: [{ "hunter22-key": "pw hunter22" }], n: 4711, m: 12 };
    expect(redactValue(value, ["hunter22", "4711"])).toEqual({
      ok: "x",
      nested: [{ [`${R}-key`]: `pw ${R}` }],
      n: R,
      m: 12,
    });
  });

  test("returns the same value without usable secrets", () => {
    const value = { a: ["abc"] };
    expect(redactValue(value, ["abc", ""])).toBe(value);
  });

  test("keeps a __proto__ key as data", () => {
    const out = redactValue(JSON.parse('{"__proto__":{"polluted":"secret1"}}'), ["secret1"]) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe(`{"__proto__":{"polluted":"${R}"}}`);
  });

  test("follows toJSON like the views do", () => {
    expect(redactValue({ at: new Date(0) }, ["1970"])).toEqual({ at: `${R}-01-01T00:00:00.000Z` });
  });
});

describe("previewArgs", () => {
  test("masks values under secret keys and bound secrets", () => {
    const args = {
      url: "https://h/?q=abcd1234",
      headers: { "X-Api-Key": { nested: 1 }, Accept: "json" },
      password: "pw",
    };
    expect(previewArgs(args, 240, ["abcd1234"])).toBe(
      `{"url":"https://h/?q=${R}","headers":{"X-Api-Key":"${R}","Accept":"json"},"password":"${R}"}`,
    );
  });

  test("makes control and invisible characters visible", () => {
    expect(previewArgs({ cmd: "ls\n\u001b[31m\u202egnp.exe\u200b\u2028\u{e0041}" })).toBe(
      '{"cmd":"ls\\n\\u001b[31m\\u202egnp.exe\\u200b\\u2028\\udb40\\udc41"}',
    );
  });

  test("clips to maxChars with a trailing ellipsis", () => {
    const preview = previewArgs({ text: "x".repeat(1000) });
    expect([preview.length, preview.endsWith("x…")]).toEqual([240, true]);
    expect(previewArgs({ text: "abcdef" }, 10)).toBe('{"text":"…');
    expect(previewArgs({ a: 1 }, 7)).toBe('{"a":1}');
  });

  test("does not split a surrogate pair when clipping", () => {
    expect(previewArgs("😀😀😀", 4)).toBe('"😀…');
  });

  test("bounds deep, cyclic, unserializable and absent arguments", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect([previewArgs(cycle), previewArgs({ n: 1n }), previewArgs(undefined)]).toEqual([
      `${'{"self":'.repeat(16)}"…"${"}".repeat(16)}`,
      "[unserializable arguments]",
      "",
    ]);
  });
});
