// The sessions a caller may hold open at once: the live ones it opened and the ones it is opening
// (seats taken before a session joins the table), never another caller's; an ended one frees its
// seat; Retry-After is when the first would end idle. The table is the real one, its sessions
// stand-ins that join and close as a transport does; the clock is injected.
import { expect, test } from "bun:test";
import type { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallerSessions, type Taken } from "../../../src/serve/oauth/session-limit.ts";
import { SessionTable, type Session, type TransportParts } from "../../../src/serve/sessions.ts";

const MIN = 60_000;

function setup() {
  let now = 10 * MIN;
  const table = new SessionTable({ now: () => now, idleMs: 30 * MIN });
  const seats = new CallerSessions(table, () => now, "/mcp");
  let n = 0;
  /** A session of `owner` made, its seat held, and joined as a transport's initialize does. */
  const open = (owner: string, taken: Taken): Session => {
    if (!("seat" in taken)) throw new Error(`refused: ${taken.refused}`);
    let parts!: TransportParts;
    const t = {
      sessionId: undefined as string | undefined,
      onclose: undefined as (() => void) | undefined,
      close: async () => t.onclose?.(),
    };
    const s = table.create((p) => ((parts = p), t as unknown as WebStandardStreamableHTTPServerTransport));
    s.owner = owner;
    taken.seat.hold(s);
    t.sessionId = `s${++n}`;
    parts.onsessioninitialized(t.sessionId);
    taken.seat.release();
    return s;
  };
  return { table, seats, open, tick: (ms: number) => void (now += ms) };
}

test("at the limit one more is refused with how to free one; another caller is not counted", async () => {
  const { seats, open, table } = setup();
  const a1 = open("a", await seats.take("a", 2));
  open("a", await seats.take("a", 2));
  open("b", await seats.take("b", 2));
  const refused = await seats.take("a", 2);
  expect(refused).toEqual({
    wait: 1800,
    refused:
      "Too Many Requests: this caller may hold 2 sessions (Mcp-Session-Id) open at once; end one with DELETE /mcp and its Mcp-Session-Id header, or wait until one ends after 30 min without a request (the first in 1800 s)",
  });
  expect("seat" in (await seats.take("b", 2))).toBe(true);
  // Ended (a DELETE closes its transport): the seat is free.
  await a1.transport.close();
  expect(table.ownedBy("a")).toHaveLength(1);
  expect("seat" in (await seats.take("a", 2))).toBe(true);
});

test("seats taken before any session joins count: initializes at once cannot pass the limit", async () => {
  const { seats } = setup();
  const taken = await Promise.all([seats.take("a", 2), seats.take("a", 2), seats.take("a", 2)]);
  expect(taken.map((t) => "seat" in t)).toEqual([true, true, false]);
  // An initialize that failed before its session began gives its seat back.
  if ("seat" in taken[0]!) taken[0].seat.release();
  expect("seat" in (await seats.take("a", 2))).toBe(true);
  expect("seat" in (await seats.take("a", 2))).toBe(false);
});

test("Retry-After is when the caller's first session would end idle; one idle past the bound frees its seat", async () => {
  const { seats, open, tick, table } = setup();
  const first = open("a", await seats.take("a", 2));
  tick(10 * MIN);
  open("a", await seats.take("a", 2));
  tick(5 * MIN);
  expect(await seats.take("a", 2)).toMatchObject({ wait: 15 * 60 });
  // A busy session is not ending: the first idle one is the second.
  first.pending.add(1);
  expect(await seats.take("a", 2)).toMatchObject({ wait: 25 * 60 });
  first.pending.clear();
  tick(15 * MIN + 1);
  expect("seat" in (await seats.take("a", 2))).toBe(true);
  expect(table.ownedBy("a").map((s) => s.transport.sessionId)).toEqual(["s2"]);
});

test("one session: the words are singular", async () => {
  const { seats, open } = setup();
  open("a", await seats.take("a", 1));
  const r = await seats.take("a", 1);
  expect("refused" in r && r.refused).toContain("this caller may hold 1 session (Mcp-Session-Id) open at once");
});
