// desk in process, through the real pipeline over a real state database: read, replace whole,
// idempotence, expected_version, lanes, and every refusal.
import { describe, expect, test } from "bun:test";
import type { LaneStore } from "../../../src/catalog/declare.ts";
import { openState } from "../../../src/state/db.ts";
import { laneStore } from "../../../src/state/lanes.ts";
import desk, { DESK_BOUND_BYTES } from "../../../src/tools/lane/desk.ts";
import { callScope, tempDir } from "../../helpers.ts";
import { callThrough, grantingNothing, pipelineDeps } from "../../support/pipeline.ts";

/** One call as `toolgate call` makes it, with nothing granted, approved or askable. */
async function call(store: LaneStore, args: unknown, lane = "default") {
  const needs: string[] = [];
  const envelope = await callThrough(
    "desk",
    args,
    pipelineDeps({
      scope: callScope("/nonexistent", { lane, store: () => store }),
      permissions: grantingNothing(needs),
      now: () => 1_000,
      deadlineMs: 5_000,
    }),
  );
  expect(needs).toEqual([]); // desk needs no permission and no approval
  return envelope as any;
}

const ok = (payload: unknown) => ({ status: "success", tool: "desk", payload });

describe("desk", () => {
  test("an unwritten page reads as version 0, empty; a write replaces it whole", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    expect(await call(store, {})).toEqual(ok({ lane: "default", version: 0, text: "" }));
    expect(await call(store, { text: "first\nnotes" })).toEqual(ok({ lane: "default", version: 1, changed: true }));
    expect(await call(store, { text: "second" })).toEqual(ok({ lane: "default", version: 2, changed: true }));
    expect(await call(store, {})).toEqual(ok({ lane: "default", version: 2, text: "second" }));
  });

  test("the same text again changes nothing; an empty text clears the page", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    await call(store, { text: "same" });
    expect(await call(store, { text: "same" })).toEqual(ok({ lane: "default", version: 1, changed: false }));
    expect(await call(store, { text: "", expected_version: 1 })).toEqual(
      ok({ lane: "default", version: 2, changed: true }),
    );
    expect(await call(store, {})).toEqual(ok({ lane: "default", version: 2, text: "" }));
  });

  test("expected_version: the version read lets the write through; 0 means a page never written", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    expect(await call(store, { text: "a", expected_version: 0 })).toEqual(
      ok({ lane: "default", version: 1, changed: true }),
    );
    expect(await call(store, { text: "b", expected_version: 1 })).toEqual(
      ok({ lane: "default", version: 2, changed: true }),
    );
  });

  test("someone else writing in between is refused as desk.conflict naming the current version", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    await call(store, { text: "mine" });
    const seen = (await call(store, {})).payload.version;
    await call(store, { text: "theirs" }); // another writer
    expect(await call(store, { text: "mine, edited", expected_version: seen })).toEqual({
      status: "failed",
      tool: "desk",
      error_code: "desk.conflict",
      message:
        'the desk of lane "default" is at version 2, not 1: someone else wrote in between; read it again (desk without text), merge, and write with expected_version 2',
      details: { expected_version: 1, current_version: 2 },
    });
    expect((await call(store, {})).payload).toEqual({ lane: "default", version: 2, text: "theirs" });
  });

  test("expected_version without text is refused as args.invalid", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    expect(await call(laneStore(db), { expected_version: 0 })).toEqual({
      status: "failed",
      tool: "desk",
      error_code: "args.invalid",
      message: "invalid arguments for desk: expected_version: only goes with text (a read needs no version)",
      details: { issues: [{ path: ["expected_version"], message: "only goes with text" }] },
    });
  });

  test("a page is bounded by its serialized size (desk.too_large); the bound itself passes", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    expect((await call(store, { text: "x".repeat(DESK_BOUND_BYTES) })).payload.version).toBe(1);
    expect((await call(store, {})).payload.text.length).toBe(DESK_BOUND_BYTES); // it reads back within the boundary
    const newlines = "\n".repeat(DESK_BOUND_BYTES / 2 + 1); // each is two bytes serialized
    expect(await call(store, { text: newlines })).toEqual({
      status: "failed",
      tool: "desk",
      error_code: "desk.too_large",
      message: `the page is ${DESK_BOUND_BYTES + 2} bytes serialized, above the desk bound of ${DESK_BOUND_BYTES}; keep the desk to working notes`,
      details: { bytes: DESK_BOUND_BYTES + 2, bound: DESK_BOUND_BYTES },
    });
    expect((await call(store, {})).payload.version).toBe(1);
  });

  test.each([
    ["text too long", { text: "x".repeat(DESK_BOUND_BYTES + 1) }, "text"],
    ["text not a string", { text: 42 }, "text"],
    ["a negative expected_version", { text: "a", expected_version: -1 }, "expected_version"],
    ["a fractional expected_version", { text: "a", expected_version: 1.5 }, "expected_version"],
    ["an extra argument", { text: "a", append: true }, "append"],
  ])("refuses %s as args.invalid, naming the path", async (_, args, path) => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const r = await call(laneStore(db), args);
    expect([r.status, r.error_code]).toEqual(["failed", "args.invalid"]);
    expect(r.message).toContain(`${path}:`);
  });

  test("each lane has its own page", async () => {
    await using dir = tempDir();
    using db = openState(dir.path);
    const store = laneStore(db);
    await call(store, { text: "one's" }, "one");
    expect(await call(store, {}, "two")).toEqual(ok({ lane: "two", version: 0, text: "" }));
    expect(await call(store, { text: "two's", expected_version: 0 }, "two")).toEqual(
      ok({ lane: "two", version: 1, changed: true }),
    );
    expect(await call(store, {}, "one")).toEqual(ok({ lane: "one", version: 1, text: "one's" }));
  });

  test("declaration: approval never, effect idempotent-write", () => {
    expect([desk.name, desk.approval, desk.effect]).toEqual(["desk", "never", "idempotent-write"]);
  });
});
