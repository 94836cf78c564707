// src/serve/event-log.ts: a session's SSE events for Last-Event-ID replays, ids counting up, each
// stream replayed alone and in order, priming events not sent again, and the log bounded.
import { describe, expect, test } from "bun:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { EventLog } from "../../src/serve/event-log.ts";

const note = (n: number): JSONRPCMessage => ({ jsonrpc: "2.0", method: "notifications/message", params: { n } });

async function replay(log: EventLog, after: string): Promise<{ stream: string; sent: [string, unknown][] }> {
  const sent: [string, unknown][] = [];
  const stream = await log.replayEventsAfter(after, {
    send: async (id, m) => void sent.push([id, (m as { params?: { n?: number } }).params?.n]),
  });
  return { stream, sent };
}

describe("the event log", () => {
  test("ids count up; a replay sends the same stream's later events in order, priming events left out", async () => {
    const log = new EventLog();
    const ids = [
      await log.storeEvent("a", {} as JSONRPCMessage),
      await log.storeEvent("a", note(1)),
      await log.storeEvent("b", note(2)),
      await log.storeEvent("a", note(3)),
    ];
    expect(ids).toEqual(["1", "2", "3", "4"]);
    expect(await log.getStreamIdForEventId("3")).toBe("b");
    expect(await replay(log, "1")).toEqual({
      stream: "a",
      sent: [
        ["2", 1],
        ["4", 3],
      ],
    });
    expect(await replay(log, "3")).toEqual({ stream: "b", sent: [] });
  });

  test.each([["9"], ["0"], ["01"], ["abc"], [""]])(
    "an id never given (%p) has no stream and replays nothing",
    async (id) => {
      const log = new EventLog();
      await log.storeEvent("a", note(1));
      expect([await log.getStreamIdForEventId(id), await replay(log, id)]).toEqual([
        undefined,
        { stream: "", sent: [] },
      ]);
    },
  );

  test("bounded by count and by bytes: the oldest go first, and their ids are no longer known", async () => {
    const byCount = new EventLog(3, 1 << 20);
    for (let i = 1; i <= 5; i++) await byCount.storeEvent("a", note(i));
    expect([await byCount.getStreamIdForEventId("2"), await byCount.getStreamIdForEventId("3")]).toEqual([
      undefined,
      "a",
    ]);
    expect(await replay(byCount, "3")).toEqual({
      stream: "a",
      sent: [
        ["4", 4],
        ["5", 5],
      ],
    });
    const size = JSON.stringify(note(1)).length;
    const byBytes = new EventLog(100, size * 2);
    for (let i = 1; i <= 4; i++) await byBytes.storeEvent("a", note(i));
    expect(await replay(byBytes, "3")).toEqual({ stream: "a", sent: [["4", 4]] });
    expect(await byBytes.getStreamIdForEventId("2")).toBeUndefined();
  });
});
