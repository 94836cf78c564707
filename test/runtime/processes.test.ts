// The process runner handed to handlers: a tool's command finds the scratch folder made, whatever
// the sandbox mode, so what it leaves there scratch_read reads (docs/tools.md "bash and scratch_read").
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { processRunner } from "../../src/runtime/processes.ts";
import { tempDir } from "../helpers.ts";

const runner = (ws: string, scratch: string) =>
  processRunner({
    parentEnv: {},
    stateDir: join(ws, ".toolgate"),
    scratch,
    sandboxMode: "off",
    sandbox: undefined,
    secrets: {},
    signal: new AbortController().signal,
  });

describe("the scratch folder", () => {
  test("is made (0700) before a tool's command runs, so the command can write into it at once", async () => {
    await using ws = tempDir();
    mkdirSync(join(ws.path, ".toolgate"), { mode: 0o700 });
    const scratch = join(ws.path, ".toolgate", "scratch");
    const r = await runner(ws.path, scratch).run({
      argv: ["/bin/sh", "-c", "echo hi > .toolgate/scratch/run.log"],
      cwd: ws.path,
      deadlineMs: 10_000,
      sandboxed: true,
    });
    expect(r.ok && r.value.ended === "exited" && r.value.code).toBe(0);
    expect(statSync(scratch).mode & 0o777).toBe(0o700);
    expect(await Bun.file(join(scratch, "run.log")).text()).toBe("hi\n");
  });

  test.each([
    ["toolgate's own helpers (not a tool's command)", ".toolgate/scratch", false, true],
    ["a scratch folder outside the state folder", "scratch", true, true],
    ["no state folder yet (never made here, unmarked)", ".toolgate/scratch", true, false],
  ])("is not made for %s", async (_, where, sandboxed, state) => {
    await using ws = tempDir();
    if (state) mkdirSync(join(ws.path, ".toolgate"), { mode: 0o700 });
    const scratch = join(ws.path, where);
    const r = await runner(ws.path, scratch).run({ argv: ["/bin/true"], cwd: ws.path, deadlineMs: 10_000, sandboxed });
    expect(r.ok).toBe(true);
    expect(existsSync(scratch)).toBe(false);
  });
});
