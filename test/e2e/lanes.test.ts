// plan and desk end to end through dist/toolgate: separate processes sharing one state
// database, --lane separation, concurrent writers, and the refusals with their exit codes.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { BIN, json, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const STEPS = [
  { title: "read the issue", status: "done" },
  { title: "write the tests", status: "in_progress" },
];
const COUNTS = { pending: 0, in_progress: 1, done: 1, dropped: 0 };

describe("plan", () => {
  test("idempotent across processes: the same plan twice is one version; a revision is the next", async () => {
    await using dir = tempDir();
    const args = JSON.stringify({ steps: STEPS });
    const first = await run(["call", "plan", args], { cwd: dir.path });
    expect([first.code, json(first)]).toEqual([
      0,
      {
        status: "success",
        tool: "plan",
        payload: { lane: "default", version: 1, changed: true, steps: STEPS, counts: COUNTS },
      },
    ]);
    const again = await run(["call", "plan", "-"], { cwd: dir.path, stdin: args });
    expect([again.code, json(again).payload]).toEqual([
      0,
      { lane: "default", version: 1, changed: false, steps: STEPS, counts: COUNTS },
    ]);
    const read = await run(["call", "plan"], { cwd: dir.path });
    expect(json(read).payload).toEqual({ lane: "default", version: 1, changed: false, steps: STEPS, counts: COUNTS });
    const revised = [STEPS[0], { title: "write the tests", status: "done" }];
    const next = await run(["call", "plan", JSON.stringify({ steps: revised })], { cwd: dir.path });
    expect(json(next).payload).toMatchObject({ version: 2, changed: true, steps: revised });
  });

  test("twenty processes writing the same plan at once make exactly one version", async () => {
    await using dir = tempDir();
    const args = JSON.stringify({ steps: STEPS });
    const results = await Promise.all(Array.from({ length: 20 }, () => run(["call", "plan", args], { cwd: dir.path })));
    expect(results.map((r) => r.code)).toEqual(Array(20).fill(0));
    const payloads = results.map((r) => json(r).payload);
    expect(new Set(payloads.map((p) => p.version))).toEqual(new Set([1]));
    expect(payloads.filter((p) => p.changed)).toHaveLength(1);
  }, 60_000);

  test("refusals: invalid steps exit 1 with args.invalid, and nothing is written", async () => {
    await using dir = tempDir();
    const r = await run(["call", "plan", '{"steps":[{"title":"x","status":"blocked"}]}'], { cwd: dir.path });
    expect([r.code, json(r).error_code]).toEqual([1, "args.invalid"]);
    expect(json(r).message).toContain("steps.0.status");
    expect(r.stderr).toContain("args.invalid");
    expect(json(await run(["call", "plan"], { cwd: dir.path })).payload.version).toBe(0);
  });

  test("journaled as an idempotent-write that needed no flags", async () => {
    await using dir = tempDir();
    await run(["call", "plan", JSON.stringify({ steps: STEPS })], { cwd: dir.path });
    const log = await run(["log", "--json"], { cwd: dir.path });
    expect(JSON.parse(log.stdout)).toMatchObject({
      tool: "plan",
      origin: "builtin",
      effect: "idempotent-write",
      status: "success",
      error_code: null,
    });
  });
});

describe("desk", () => {
  test("read, write whole, read back across processes", async () => {
    await using dir = tempDir();
    expect(json(await run(["call", "desk"], { cwd: dir.path })).payload).toEqual({
      lane: "default",
      version: 0,
      text: "",
    });
    const w = await run(["call", "desk", "--arg", "text=line one\nline two"], { cwd: dir.path });
    expect([w.code, json(w).payload]).toEqual([0, { lane: "default", version: 1, changed: true }]);
    await run(["call", "desk", '{"text":"replaced"}'], { cwd: dir.path });
    expect(json(await run(["call", "desk"], { cwd: dir.path })).payload).toEqual({
      lane: "default",
      version: 2,
      text: "replaced",
    });
  });

  test("a conflict across processes: the stale writer is refused with the current version (exit 1)", async () => {
    await using dir = tempDir();
    const seen = json(await run(["call", "desk"], { cwd: dir.path })).payload.version; // process A reads
    await run(["call", "desk", '{"text":"from B"}'], { cwd: dir.path }); // process B writes
    const stale = await run(["call", "desk", JSON.stringify({ text: "from A", expected_version: seen })], {
      cwd: dir.path,
    });
    expect(stale.code).toBe(1);
    expect(json(stale)).toMatchObject({
      status: "failed",
      tool: "desk",
      error_code: "desk.conflict",
      details: { expected_version: 0, current_version: 1 },
    });
    expect(json(stale).message).toContain("at version 1, not 0");
    expect(stale.stderr).toContain("desk.conflict");
    expect(json(await run(["call", "desk"], { cwd: dir.path })).payload.text).toBe("from B");
    const retry = await run(["call", "desk", JSON.stringify({ text: "from A, merged", expected_version: 1 })], {
      cwd: dir.path,
    });
    expect(json(retry).payload).toEqual({ lane: "default", version: 2, changed: true });
  });

  test("ten writers expecting the same version at once: exactly one wins, the rest get desk.conflict", async () => {
    await using dir = tempDir();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        run(["call", "desk", JSON.stringify({ text: `writer ${i}`, expected_version: 0 })], { cwd: dir.path }),
      ),
    );
    expect(results.filter((r) => r.code === 0)).toHaveLength(1);
    expect(results.filter((r) => r.code === 1).map((r) => json(r).error_code)).toEqual(Array(9).fill("desk.conflict"));
    const page = json(await run(["call", "desk"], { cwd: dir.path })).payload;
    expect(page.version).toBe(1);
    expect(json(results.find((r) => r.code === 0)!).payload.version).toBe(1);
  }, 60_000);

  test.each([
    ["expected_version without text", '{"expected_version":0}', "args.invalid"],
    ["a page above the bound", JSON.stringify({ text: "\n".repeat(24_001) }), "desk.too_large"],
    ["text that is not a string", '{"text":42}', "args.invalid"],
  ])("refuses %s (exit 1)", async (_, args, code) => {
    await using dir = tempDir();
    const r = await run(["call", "desk", args], { cwd: dir.path });
    expect([r.code, json(r).status, json(r).error_code]).toEqual([1, "failed", code]);
  });
});

describe("--lane", () => {
  test("plans and desk pages are per lane; the default lane is its own", async () => {
    await using dir = tempDir();
    await run(["call", "plan", JSON.stringify({ steps: STEPS }), "--lane", "build"], { cwd: dir.path });
    await run(["call", "desk", '{"text":"build notes"}', "--lane", "build"], { cwd: dir.path });
    const other = await run(["call", "plan", '{"steps":[{"title":"review","status":"pending"}]}', "--lane=review"], {
      cwd: dir.path,
    });
    expect(json(other).payload).toMatchObject({ lane: "review", version: 1, changed: true });
    expect(json(await run(["call", "plan", "--lane", "build"], { cwd: dir.path })).payload).toMatchObject({
      lane: "build",
      version: 1,
      steps: STEPS,
    });
    expect(json(await run(["call", "desk", "--lane", "build"], { cwd: dir.path })).payload).toEqual({
      lane: "build",
      version: 1,
      text: "build notes",
    });
    expect(json(await run(["call", "desk", "--lane", "review"], { cwd: dir.path })).payload).toEqual({
      lane: "review",
      version: 0,
      text: "",
    });
    expect(json(await run(["call", "plan"], { cwd: dir.path })).payload).toMatchObject({
      lane: "default",
      version: 0,
      steps: [],
    });
  });

  test("a bad lane name is a usage error (exit 2), and nothing runs", async () => {
    await using dir = tempDir();
    const r = await run(["call", "plan", "--lane", "no spaces"], { cwd: dir.path });
    expect([r.code, r.stdout]).toEqual([2, ""]);
  });
});
