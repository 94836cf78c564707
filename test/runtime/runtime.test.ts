// The Runtime in process: opened once, its calls run through the one pipeline and are journaled in
// the state it opened; a dry run journals nothing; close closes the state it opened, not one it was handed;
// a drain refuses new calls (journaled) and cancels the calls still running after its grace.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openState } from "../../src/state/db.ts";
import { openRuntime, type Caller } from "../../src/runtime/runtime.ts";
import type { Effective } from "../../src/config/resolve.ts";
import type { PermissionFlag } from "../../src/permission/flags.ts";
import { tempDir } from "../helpers.ts";

const caller = (lines: string[]): Caller => ({
  lane: "default",
  approved: new Set(["file_read"]),
  ask: undefined,
  operator: (line) => void lines.push(line),
  unstarted: (e) => {
    throw e;
  },
  unfinished: (e) => {
    throw e;
  },
});

function workspace(path: string) {
  writeFileSync(join(path, "toolgate.json"), JSON.stringify({ sandbox: "off" }));
  writeFileSync(join(path, "a.txt"), "hello\n");
  const permissionFlags: PermissionFlag[] = [{ effect: "allow", kind: "read", value: true }];
  return { cwd: path, env: { HOME: path, XDG_STATE_HOME: join(path, ".xdg") }, permissionFlags, telemetry: undefined };
}

const rows = (stateDir: string) => {
  const db = openState(stateDir);
  try {
    return db.query("SELECT tool, origin, status, error_code FROM journal ORDER BY rowid").all();
  } finally {
    db.close();
  }
};

describe("Runtime", () => {
  test("a call runs through the pipeline and its row is journaled in the state the runtime opened", async () => {
    await using dir = tempDir();
    let opened = 0;
    const rt = await openRuntime({
      ...workspace(dir.path),
      state: { open: (config: Effective) => (opened++, openState(config.values.state as string)) },
    });
    const lines: string[] = [];
    const read = await rt.call("file_read", { path: "a.txt" }, caller(lines));
    const unknown = await rt.call("file_raed", {}, caller(lines));
    await rt.close();
    expect(read.envelope.status).toBe("success");
    expect(JSON.stringify(read.envelope)).toContain("hello");
    expect(unknown.envelope).toMatchObject({ status: "failed", error_code: "unknown_tool" });
    expect(opened).toBe(1);
    expect(rows(rt.booted.stateDir)).toEqual([
      { tool: "file_read", origin: "builtin", status: "success", error_code: null },
      { tool: "file_raed", origin: null, status: "failed", error_code: "unknown_tool" },
    ]);
  });

  test("a dry run says what the call needs and journals nothing; a kept state stays open after close", async () => {
    await using dir = tempDir();
    let kept: ReturnType<typeof openState> | undefined;
    const rt = await openRuntime({
      ...workspace(dir.path),
      state: { open: (config: Effective) => (kept = openState(config.values.state as string)), kept: true },
    });
    const r = await rt.call("file_write", { path: "b.txt", content: "x" }, { ...caller([]), dryRun: true });
    await rt.close();
    expect(r.envelope).toMatchObject({ status: "success", payload: { dry_run: true, would_run: false } });
    expect(kept!.query("SELECT count(*) AS n FROM journal").get()).toEqual({ n: 0 });
    kept!.close();
  });
  test("a drain refuses every call from then on, journaled, and lets the calls in flight finish within its grace", async () => {
    await using dir = tempDir();
    const rt = await openRuntime({
      ...workspace(dir.path),
      state: { open: (config: Effective) => openState(config.values.state as string) },
    });
    const lines: string[] = [];
    const quick = rt.call("file_read", { path: "a.txt" }, caller(lines));
    const drained = rt.drain(60_000, { code: "serve.shutting_down", message: "stopping" });
    const late = await rt.call("file_read", { path: "a.txt" }, caller(lines));
    await drained;
    expect((await quick).envelope.status).toBe("success");
    await rt.close();
    expect(late.envelope).toMatchObject({ status: "failed", error_code: "serve.shutting_down", message: "stopping" });
    const byStatus = (
      rows(rt.booted.stateDir) as { tool: string; origin: string; status: string; error_code: string | null }[]
    ).sort((a, b) => a.status.localeCompare(b.status));
    expect(byStatus).toEqual([
      { tool: "file_read", origin: "builtin", status: "failed", error_code: "serve.shutting_down" },
      { tool: "file_read", origin: "builtin", status: "success", error_code: null },
    ]);
  });

  test("a call still running when the drain's grace is over is cancelled, and the drain waits for it", async () => {
    await using dir = tempDir();
    const ws = workspace(dir.path);
    const permissionFlags: PermissionFlag[] = [...ws.permissionFlags, { effect: "allow", kind: "run", value: true }];
    const rt = await openRuntime({
      ...ws,
      permissionFlags,
      state: { open: (config: Effective) => openState(config.values.state as string) },
    });
    const slow = rt.call("bash", { command: "sleep 60" }, { ...caller([]), approved: new Set(["bash"]) });
    await rt.drain(100, { code: "serve.shutting_down", message: "stopping" });
    const r = await slow;
    await rt.close();
    expect(r.envelope).toMatchObject({ status: "failed", error_code: "bash.cancelled" });
    expect(rows(rt.booted.stateDir)).toEqual([
      { tool: "bash", origin: "builtin", status: "failed", error_code: "bash.cancelled" },
    ]);
  });
});
