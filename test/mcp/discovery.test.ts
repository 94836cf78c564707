import { describe, expect, test } from "bun:test";
import { discover, filterTools, NEGATIVE_TTL_MS, type Connected, type Failure } from "../../src/mcp/discovery.ts";

const tool = (name: string) => ({ name, description: "", inputSchema: { type: "object" } });
const server = (name: string, connectTimeoutMs = 1000) => ({ name, connectTimeoutMs });

function gate() {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { p, open };
}

describe("discovery", () => {
  test("at most four servers at a time, results in name order whatever the finish order", async () => {
    let running = 0;
    let peak = 0;
    const gates = new Map<string, ReturnType<typeof gate>>();
    const names = ["f", "b", "h", "a", "c", "g", "e", "d"];
    for (const n of names) gates.set(n, gate());
    const connect = async (s: { name: string }): Promise<Connected> => {
      running++;
      peak = Math.max(peak, running);
      await gates.get(s.name)!.p;
      running--;
      return { tools: [tool(`${s.name}1`)], close: async () => {} };
    };
    const pending = discover(
      names.map((n) => server(n)),
      connect,
      { now: () => 0, failures: new Map() },
    );
    // open every gate in reverse name order; each waits in the queue until a slot frees
    for (const n of [...names].reverse()) {
      for (let i = 0; i < 100 && !(running > 0); i++) await Bun.sleep(0);
      gates.get(n)!.open();
      await Bun.sleep(0);
    }
    const r = await pending;
    expect(peak).toBe(4);
    expect(r.map((x) => x.server)).toEqual(["a", "b", "c", "d", "e", "f", "g", "h"]);
    expect(r.every((x) => x.ok)).toBe(true);
  });

  test("a failed server is remembered for 30 s and then retried alone", async () => {
    let clock = 1_000_000;
    const failures = new Map<string, Failure>();
    const attempts: string[] = [];
    let brokenUp = false;
    const connect = async (s: { name: string }): Promise<Connected> => {
      attempts.push(s.name);
      if (s.name === "broken" && !brokenUp) throw new Error("spawn failed: ENOENT");
      return { tools: [tool("t")], close: async () => {} };
    };
    const servers = [server("ok"), server("broken")];
    const first = await discover(servers, connect, { now: () => clock, failures });
    expect(first.map((x) => [x.server, x.ok])).toEqual([
      ["broken", false],
      ["ok", true],
    ]);
    expect(first[0]).toMatchObject({ error: "spawn failed: ENOENT", cached: false });

    clock += NEGATIVE_TTL_MS - 1; // still remembered: not retried
    attempts.length = 0;
    const second = await discover([server("broken")], connect, { now: () => clock, failures });
    expect(attempts).toEqual([]);
    expect(second[0]).toMatchObject({ ok: false, cached: true, error: "spawn failed: ENOENT" });

    clock += 1; // expired: retried, and only it
    brokenUp = true;
    attempts.length = 0;
    const third = await discover(
      servers.filter((s) => s.name === "broken"),
      connect,
      { now: () => clock, failures },
    );
    expect(attempts).toEqual(["broken"]);
    expect(third[0]!.ok).toBe(true);
    expect(failures.size).toBe(0);
  });

  test("a server missing its connect timeout fails without blocking the others, and is closed when it arrives", async () => {
    let closed = false;
    const late = gate();
    const connect = async (s: { name: string }): Promise<Connected> => {
      if (s.name === "slow") await late.p;
      return { tools: [tool("t")], close: async () => void (closed = true) };
    };
    const r = await discover([server("slow", 30), server("fast")], connect, { now: () => 0, failures: new Map() });
    expect(r.map((x) => [x.server, x.ok])).toEqual([
      ["fast", true],
      ["slow", false],
    ]);
    expect(r[1]).toMatchObject({ error: "no answer within the connect timeout (0.03 s, connect_timeout_secs)" });
    late.open();
    for (let i = 0; i < 100 && !closed; i++) await Bun.sleep(1);
    expect(closed).toBe(true);
  });

  test("a missed connect timeout is worded by the caller (naming its key) when it says how", async () => {
    const never = new Promise<Connected>(() => {});
    const r = await discover([server("slow", 10)], () => never, {
      now: () => 0,
      failures: new Map(),
      timedOut: (s) => `${s.name}: raise its key past ${s.connectTimeoutMs} ms`,
    });
    expect(r[0]).toMatchObject({ ok: false, error: "slow: raise its key past 10 ms" });
  });

  test("include and exclude filter raw names, with * wildcards", () => {
    const tools = ["read_file", "write_file", "list_dir", "search"].map(tool);
    expect(filterTools(tools, ["*_file", "search"], ["write_*"]).map((t) => t.name)).toEqual(["read_file", "search"]);
    expect(filterTools(tools, undefined, ["search"]).map((t) => t.name)).toEqual([
      "read_file",
      "write_file",
      "list_dir",
    ]);
  });
});

test("a transient failure (a missing permission) is not remembered", async () => {
  const failures = new Map<string, Failure>();
  const connect = async (): Promise<Connected> => {
    throw Object.assign(new Error("run access is not granted"), { transient: true });
  };
  const r = await discover([server("a")], connect, { now: () => 0, failures });
  expect(r[0]).toMatchObject({ ok: false, remembered: false, cached: false });
  expect(failures.size).toBe(0);
});
