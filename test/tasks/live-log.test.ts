// The live log's batching: pieces in order (adjacent ones of a stream merged), one write per
// flush, nothing written when nothing came, a pending batch bounded by the cap with the dropped
// part counted in chunks, and a failing write that does not fail the run.
import { describe, expect, test } from "bun:test";
import { LiveLog, type Piece } from "../../src/tasks/live-log.ts";
import { WAIT_MS, waitFor } from "../support/wait.ts";

function recorder() {
  const writes: { pieces: Piece[]; dropped: number }[] = [];
  return {
    writes,
    write: (pieces: readonly Piece[], dropped: number) =>
      void writes.push({ pieces: pieces.map((p) => ({ ...p })), dropped }),
  };
}

describe("LiveLog", () => {
  test("one write per flush, in order, adjacent pieces of a stream merged; an empty flush writes nothing", () => {
    const r = recorder();
    const log = new LiveLog({ write: r.write, chunkChars: 10, chunksCap: 4 });
    log.push("stdout", "a");
    log.push("stdout", "b");
    log.push("stderr", "c");
    log.push("stdout", "");
    log.push("stdout", "d");
    log.flush();
    log.flush();
    expect(r.writes).toEqual([
      {
        pieces: [
          { stream: "stdout", text: "ab" },
          { stream: "stderr", text: "c" },
          { stream: "stdout", text: "d" },
        ],
        dropped: 0,
      },
    ]);
  });

  test("a pending batch keeps at most the cap's characters: the oldest go, counted in chunks", () => {
    const r = recorder();
    const log = new LiveLog({ write: r.write, chunkChars: 10, chunksCap: 2 });
    log.push("stdout", "0123456789");
    log.push("stderr", "abcdefghij");
    log.push("stdout", "KLMNOPQRSTUV");
    log.stop();
    expect(r.writes).toEqual([
      {
        pieces: [
          { stream: "stderr", text: "cdefghij" },
          { stream: "stdout", text: "KLMNOPQRSTUV" },
        ],
        dropped: 2,
      },
    ]);
  });

  test("start writes on its own timer; stop writes what is left; a failing write stops the log, not the run", async () => {
    const r = recorder();
    const log = new LiveLog({ write: r.write, chunkChars: 10, chunksCap: 4, flushMs: 5 }).start();
    log.push("stdout", "early");
    await waitFor("the timer's write", () => r.writes.length > 0, WAIT_MS, 5);
    expect(r.writes).toEqual([{ pieces: [{ stream: "stdout", text: "early" }], dropped: 0 }]);
    log.push("stdout", "late");
    log.stop();
    expect(r.writes.at(-1)).toEqual({ pieces: [{ stream: "stdout", text: "late" }], dropped: 0 });
    let calls = 0;
    const failing = new LiveLog({
      write: () =>
        void (calls++,
        (() => {
          throw new Error("database is locked");
        })()),
      chunkChars: 10,
      chunksCap: 4,
    });
    failing.push("stdout", "x");
    expect(() => failing.flush()).not.toThrow();
    failing.push("stdout", "y");
    failing.flush();
    expect(calls).toBe(1);
  });
});
