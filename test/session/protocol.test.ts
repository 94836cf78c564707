import { describe, expect, test } from "bun:test";
import { lineReader, Outbox } from "../../src/session/protocol.ts";

describe("session protocol", () => {
  test("lineReader joins chunks split anywhere, a multi-byte character included, and skips blank and broken lines", () => {
    const got: unknown[] = [];
    const read = lineReader((v) => got.push(v));
    const bytes = new TextEncoder().encode('{"t":"o","d":"é"}\n\nnot json\n{"t":"x","code":3}\n');
    read(bytes.subarray(0, 14));
    read(bytes.subarray(14, 15));
    read(bytes.subarray(15));
    expect(got).toEqual([
      { t: "o", d: "é" },
      { t: "x", code: 3 },
    ]);
  });

  test("Outbox keeps the order and writes what a full socket did not take once it drains", () => {
    const written: number[] = [];
    let room = 5;
    const box = new Outbox({
      write: (d) => {
        const n = Math.min(room, d.length);
        room -= n;
        written.push(...d.subarray(0, n));
        return n;
      },
    });
    box.send({ a: 1 });
    box.send({ b: 2 });
    expect(box.idle).toBe(false);
    room = 1000;
    box.drain();
    expect(box.idle).toBe(true);
    expect(new TextDecoder().decode(new Uint8Array(written))).toBe('{"a":1}\n{"b":2}\n');
  });
});
