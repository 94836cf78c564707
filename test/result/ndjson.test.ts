// The one newline-JSON reader (src/result/ndjson.ts) that an MCP server's stdout, serve's stdin and
// the session socket are read with: whole lines whatever the chunks (a character split between
// them included), CR LF, blank lines skipped, a line past the bound dropped as it arrives with only
// its edges kept, a line that is not JSON reported and the next one read.
import { describe, expect, test } from "bun:test";
import { jsonLines, LineReader, type Dropped } from "../../src/result/ndjson.ts";

const encode = (s: string) => new TextEncoder().encode(s);

function reader(max: number) {
  const lines: string[] = [];
  const dropped: Dropped[] = [];
  return {
    lines,
    dropped,
    r: new LineReader(
      max,
      (l) => void lines.push(l),
      (d) => void dropped.push(d),
    ),
  };
}

describe("LineReader", () => {
  test("whole lines whatever the chunks: CR LF and LF, a character split between chunks, empty lines skipped", () => {
    const { lines, dropped, r } = reader(64);
    const bytes = encode('{"a":1}\r\n\n\r\n{"b":"zażółć"}\n{"c":');
    // Every split of the stream into two chunks gives the same lines.
    for (let cut = 0; cut <= bytes.length; cut++) {
      lines.length = 0;
      r.push(bytes.subarray(0, cut));
      r.push(bytes.subarray(cut));
      r.push(encode("3}\n"));
      expect(lines).toEqual(['{"a":1}', '{"b":"zażółć"}', '{"c":3}']);
    }
    expect(dropped).toEqual([]);
  });

  test("a line of exactly the bound is read; one byte more is dropped, only its edges kept; the next line is read", () => {
    const { lines, dropped, r } = reader(4096);
    const at = `"${"a".repeat(4094)}"`;
    r.push(encode(`${at}\n`));
    expect(lines).toEqual([at]);
    lines.length = 0;
    const head = '{"jsonrpc":"2.0","id":7,"result":{"text":"';
    const over = `${head}${"b".repeat(20_000)}"}}`;
    // In small chunks: the drop begins mid-line, after the bound is passed.
    const bytes = encode(`${over}\n{"next":1}\n`);
    for (let i = 0; i < bytes.length; i += 1000) r.push(bytes.subarray(i, i + 1000));
    expect(lines).toEqual(['{"next":1}']);
    expect(dropped).toHaveLength(1);
    expect(dropped[0]!.head).toBe(over.slice(0, 1024));
    expect(dropped[0]!.tail).toBe(over.slice(-1024));
  });
});

describe("jsonLines", () => {
  function json(max: number) {
    const values: unknown[] = [];
    const invalid: string[] = [];
    const passed: string[] = [];
    const dropped: Dropped[] = [];
    const push = jsonLines(max, (v) => void values.push(v), {
      invalid: (line, e) => {
        expect(e).toBeInstanceOf(SyntaxError);
        invalid.push(line);
      },
      passed: (head) => void passed.push(head),
      dropped: (d) => void dropped.push(d),
    });
    return { values, invalid, passed, dropped, push };
  }

  test("values split across chunks at every byte, a CR LF, blank lines and a 4-byte character split between chunks", () => {
    const bytes = encode('{"t":"o","d":"é🧰"}\r\n\n   \n[1,2]\n"x"\n');
    for (let a = 0; a <= bytes.length; a++) {
      for (const b of [a, Math.min(bytes.length, a + 1), Math.min(bytes.length, a + 3)]) {
        const { values, invalid, push } = json(1024);
        push(bytes.subarray(0, a));
        push(bytes.subarray(a, b));
        push(bytes.subarray(b));
        expect(values).toEqual([{ t: "o", d: "é🧰" }, [1, 2], "x"]);
        expect(invalid).toEqual([]);
      }
    }
  });

  test("a line that is not JSON is reported with its text and the next line is read", () => {
    const { values, invalid, push } = json(1024);
    push(encode('not json\n{"a":\n{"b":2}\n'));
    expect(invalid).toEqual(["not json", '{"a":']);
    expect(values).toEqual([{ b: 2 }]);
  });

  test("a line over the bound is never parsed: passed as the bound is passed, dropped once it ends, and the next value read", () => {
    const { values, invalid, passed, dropped, push } = json(64);
    const over = `{"big":"${"z".repeat(200)}"}`;
    push(encode(over.slice(0, 100)));
    expect(passed).toEqual([over.slice(0, 100)]);
    expect(dropped).toEqual([]);
    push(encode(`${over.slice(100)}\n{"after":true}\n`));
    expect(dropped).toEqual([{ head: over, tail: over }]);
    expect(values).toEqual([{ after: true }]);
    expect(invalid).toEqual([]);
  });

  test("the bound counts a line's bytes before its LF, a CR included: exactly the bound is read, one byte more dropped", () => {
    const exact = json(11);
    exact.push(encode('"12345678"\r\n'));
    expect(exact.passed).toEqual([]);
    expect(exact.values).toEqual(["12345678"]);
    const over = json(10);
    over.push(encode('"12345678"\r\n'));
    expect(over.passed).toEqual(['"12345678"\r']);
    expect(over.values).toEqual([]);
  });
});
