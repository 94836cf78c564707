// The LaneStore on a real SQLite file: versions, idempotence, expected_version, lanes kept
// apart, and two connections (as two processes would have) seeing each other's writes.
import { describe, expect, test } from "bun:test";
import { openState } from "../../src/state/db.ts";
import { laneStore } from "../../src/state/lanes.ts";
import { tempDir } from "../helpers.ts";

const steps = (...s: [string, "pending" | "in_progress" | "done" | "dropped"][]) =>
  s.map(([title, status]) => ({ title, status }));

describe("plans", () => {
  test("no plan reads as null; the first write is version 1", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    expect(store.readPlan("default")).toBeNull();
    const plan = steps(["a", "pending"], ["b", "in_progress"]);
    expect(store.writePlan("default", plan, 1000)).toEqual({
      lane: "default",
      version: 1,
      steps: plan,
      updated_ms: 1000,
      changed: true,
    });
    expect(store.readPlan("default")).toEqual({ lane: "default", version: 1, steps: plan, updated_ms: 1000 });
  });

  test("the same steps again create nothing new: same version, same time, changed false", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    const plan = steps(["a", "pending"]);
    store.writePlan("default", plan, 1000);
    expect(store.writePlan("default", plan, 2000)).toEqual({
      lane: "default",
      version: 1,
      steps: plan,
      updated_ms: 1000,
      changed: false,
    });
  });

  const base = steps(["a", "pending"], ["b", "pending"]);
  test.each([
    ["a status changes", steps(["a", "done"], ["b", "pending"])],
    ["a title changes", steps(["A", "pending"], ["b", "pending"])],
    ["a step is added", steps(["a", "pending"], ["b", "pending"], ["c", "pending"])],
    ["a step is removed", steps(["a", "pending"])],
    ["the order changes", steps(["b", "pending"], ["a", "pending"])],
  ])("a revision when %s is the next version", async (_, next) => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    store.writePlan("default", base, 1000);
    expect(store.writePlan("default", next, 2000)).toEqual({
      lane: "default",
      version: 2,
      steps: next,
      updated_ms: 2000,
      changed: true,
    });
  });

  test("extra properties on a step are not stored (and do not make a new version)", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    store.writePlan("default", steps(["a", "pending"]), 1000);
    const withExtra = [{ title: "a", status: "pending" as const, note: "x" }];
    expect(store.writePlan("default", withExtra, 2000)).toMatchObject({
      version: 1,
      changed: false,
      steps: steps(["a", "pending"]),
    });
  });

  test("lanes are separate", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    store.writePlan("a", steps(["x", "pending"]), 1);
    store.writePlan("a", steps(["x", "done"]), 2);
    expect(store.writePlan("b", steps(["x", "pending"]), 3)).toMatchObject({ lane: "b", version: 1, changed: true });
    expect(store.readPlan("a")).toMatchObject({ version: 2, steps: steps(["x", "done"]) });
  });
});

describe("desk pages", () => {
  test("no page reads as null; writes replace the page whole and count versions", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    expect(store.readDesk("default")).toBeNull();
    expect(store.writeDesk("default", "one", undefined, 10)).toEqual({
      ok: true,
      record: { lane: "default", version: 1, text: "one", updated_ms: 10 },
    });
    expect(store.writeDesk("default", "two", undefined, 20)).toEqual({
      ok: true,
      record: { lane: "default", version: 2, text: "two", updated_ms: 20 },
    });
    expect(store.readDesk("default")).toEqual({ lane: "default", version: 2, text: "two", updated_ms: 20 });
  });

  test("the same text again is not a new version", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    store.writeDesk("default", "same", undefined, 10);
    expect(store.writeDesk("default", "same", undefined, 20)).toEqual({
      ok: true,
      record: { lane: "default", version: 1, text: "same", updated_ms: 10 },
    });
  });

  test.each([
    // current version before the write, expected version, accepted
    [0, 0, true],
    [0, 1, false],
    [2, 2, true],
    [2, 1, false],
    [2, 0, false],
    [2, 3, false],
  ])("at version %d, expected_version %d is accepted: %p", async (current, expected, accepted) => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    for (let i = 1; i <= current; i++) store.writeDesk("default", `v${i}`, undefined, i);
    const r = store.writeDesk("default", "mine", expected, 100);
    if (accepted)
      expect(r).toEqual({ ok: true, record: { lane: "default", version: current + 1, text: "mine", updated_ms: 100 } });
    else
      expect(r).toEqual({
        ok: false,
        current: current === 0 ? null : { lane: "default", version: current, text: `v${current}`, updated_ms: current },
      });
  });

  test("a stale expected_version is refused even when the text would be the same", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    store.writeDesk("default", "x", undefined, 1);
    store.writeDesk("default", "y", undefined, 2);
    expect(store.writeDesk("default", "y", 1, 3)).toMatchObject({ ok: false, current: { version: 2 } });
  });

  test("two connections to one file see each other's writes; the later stale writer is refused", async () => {
    await using dir = tempDir();
    using a = openState(dir.path);
    using b = openState(dir.path);
    const sa = laneStore(a);
    const sb = laneStore(b);
    const seen = sa.readDesk("default")?.version ?? 0;
    expect(sb.writeDesk("default", "from b", seen, 1)).toMatchObject({ ok: true, record: { version: 1 } });
    expect(sa.writeDesk("default", "from a", seen, 2)).toMatchObject({
      ok: false,
      current: { version: 1, text: "from b" },
    });
    sa.writePlan("default", steps(["p", "pending"]), 3);
    expect(sb.writePlan("default", steps(["p", "pending"]), 4)).toMatchObject({ version: 1, changed: false });
    a.close();
    b.close();
    using c = openState(dir.path);
    expect(laneStore(c).readDesk("default")).toMatchObject({ version: 1, text: "from b" });
  });
});
