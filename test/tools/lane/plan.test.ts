// plan in process, through the real pipeline (generated schema, approval policy, boundary) over
// a real state database: declare, read, revise, idempotence, lanes, and every refusal.
import { describe, expect, test } from "bun:test";
import type { LaneStore } from "../../../src/catalog/declare.ts";
import { openState } from "../../../src/state/db.ts";
import { laneStore } from "../../../src/state/lanes.ts";
import plan, { MAX_STEPS, MAX_TITLE_CHARS } from "../../../src/tools/lane/plan.ts";
import { callScope, tempDir } from "../../helpers.ts";
import { callThrough, grantingNothing, pipelineDeps } from "../../support/pipeline.ts";

/** One call as `toolgate call` makes it, with nothing granted, approved or askable. */
async function call(store: LaneStore, args: unknown, lane = "default") {
  const needs: string[] = [];
  const envelope = await callThrough(
    "plan",
    args,
    pipelineDeps({
      scope: callScope("/nonexistent", { lane, store: () => store }),
      permissions: grantingNothing(needs),
      now: () => 1_000,
      deadlineMs: 5_000,
    }),
  );
  expect(needs).toEqual([]); // plan needs no permission and no approval
  return envelope as any;
}

const payload = (version: number, changed: boolean, steps: { title: string; status: string }[], lane = "default") => ({
  lane,
  version,
  changed,
  steps,
  counts: Object.fromEntries(
    ["pending", "in_progress", "done", "dropped"].map((s) => [s, steps.filter((x) => x.status === s).length]),
  ),
});

describe("plan", () => {
  test("declare, read back, revise, and write the same plan again", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    const first = [
      { title: "read the issue", status: "done" },
      { title: "write tests", status: "in_progress" },
      { title: "ship", status: "pending" },
    ];
    expect(await call(store, {})).toEqual({ status: "success", tool: "plan", payload: payload(0, false, []) });
    expect(await call(store, { steps: first })).toEqual({
      status: "success",
      tool: "plan",
      payload: payload(1, true, first),
    });
    expect(await call(store, {})).toEqual({ status: "success", tool: "plan", payload: payload(1, false, first) });
    expect(await call(store, { steps: first })).toEqual({
      status: "success",
      tool: "plan",
      payload: payload(1, false, first),
    });
    const revised = [first[0]!, { title: "write tests", status: "done" }, { title: "ship", status: "dropped" }];
    expect(await call(store, { steps: revised })).toEqual({
      status: "success",
      tool: "plan",
      payload: payload(2, true, revised),
    });
  });

  test("each lane has its own plan and versions", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    await call(store, { steps: [{ title: "a", status: "pending" }] }, "one");
    await call(store, { steps: [{ title: "a", status: "done" }] }, "one");
    expect((await call(store, {}, "two")).payload).toEqual(payload(0, false, [], "two"));
    expect((await call(store, { steps: [{ title: "b", status: "pending" }] }, "two")).payload.version).toBe(1);
    expect((await call(store, {}, "one")).payload).toEqual(payload(2, false, [{ title: "a", status: "done" }], "one"));
  });

  test("the bounds: 1 and 100 steps, titles of 1 and 500 characters", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    const many = Array.from({ length: MAX_STEPS }, (_, i) => ({
      title: `${i} ${"x".repeat(MAX_TITLE_CHARS - 1 - String(i).length)}`,
      status: "pending",
    }));
    const r = await call(store, { steps: many });
    expect([r.status, r.payload.steps.length]).toEqual(["success", MAX_STEPS]);
    expect((await call(store, { steps: [{ title: "x", status: "pending" }] })).status).toBe("success");
  });

  const step = { title: "t", status: "pending" };
  test.each([
    ["no steps", { steps: [] }, "steps"],
    ["101 steps", { steps: Array.from({ length: MAX_STEPS + 1 }, () => step) }, "steps"],
    ["an empty title", { steps: [{ title: "", status: "pending" }] }, "steps.0.title"],
    [
      "a 501-character title",
      { steps: [{ title: "x".repeat(MAX_TITLE_CHARS + 1), status: "pending" }] },
      "steps.0.title",
    ],
    ["a title of spaces", { steps: [step, { title: "   ", status: "pending" }] }, "steps.1.title"],
    ["a title over two lines", { steps: [{ title: "a\nb", status: "pending" }] }, "steps.0.title"],
    ["an unknown status", { steps: [{ title: "t", status: "blocked" }] }, "steps.0.status"],
    ["a missing status", { steps: [{ title: "t" }] }, "steps.0.status"],
    ["an extra step key", { steps: [{ ...step, owner: "me" }] }, "steps.0.owner"],
    ["an extra argument", { steps: [step], mode: "append" }, "mode"],
    ["steps not a list", { steps: "do it" }, "steps"],
  ])("refuses %s as args.invalid, naming the path", async (_, args, path) => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const r = await call(laneStore(db), args);
    expect([r.status, r.error_code]).toEqual(["failed", "args.invalid"]);
    expect(r.message).toContain(`${path}:`);
    expect(laneStore(db).readPlan("default")).toBeNull();
  });

  test("declaration: approval never, effect idempotent-write", () => {
    expect([plan.name, plan.approval, plan.effect]).toEqual(["plan", "never", "idempotent-write"]);
  });
});
