import { describe, expect, test } from "bun:test";
import type { Connection } from "../../src/mcp/connect.ts";
import { ConnectionPool } from "../../src/servers/pool.ts";

function fakeConnection(pid: number): Connection & { closed: number[]; lose(): void } {
  let lose!: (why: string) => void;
  const closed: number[] = [];
  return {
    session: {} as Connection["session"],
    tools: [],
    child: { pid } as Connection["child"],
    lost: new Promise<string>((r) => (lose = r)),
    close: async (grace) => void closed.push(grace),
    closed,
    lose: () => lose("exited with status 1"),
  };
}

describe("ConnectionPool", () => {
  test("keeps a connection by key until it is lost, and closes what it keeps once, refusing more after", async () => {
    const pool = new ConnectionPool();
    const a = fakeConnection(10);
    const b = fakeConnection(11);
    expect(pool.keep("ka", "a", a)).toBe(true);
    expect(pool.keep("kb", "b", b)).toBe(true);
    expect([pool.get("ka"), pool.owns(b), pool.alive()]).toEqual([
      a,
      true,
      [
        { name: "a", pid: 10 },
        { name: "b", pid: 11 },
      ],
    ]);
    a.lose();
    await a.lost;
    expect([pool.get("ka"), pool.owns(a), pool.alive()]).toEqual([undefined, false, [{ name: "b", pid: 11 }]]);
    await pool.close(250);
    expect([a.closed, b.closed, pool.alive()]).toEqual([[], [250], []]);
    expect(pool.keep("kc", "c", fakeConnection(12))).toBe(false);
  });
});
