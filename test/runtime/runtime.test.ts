// The Runtime in process: opened once, its calls run through the one pipeline and are journaled in
// the state it opened; a dry run journals nothing; close closes the state it opened, not one it was handed.
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
    const rt = await openRuntime({ ...workspace(dir.path), state: { open: (config: Effective) => (opened++, openState(config.values.state as string)) } });
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
    const rt = await openRuntime({ ...workspace(dir.path), state: { open: (config: Effective) => (kept = openState(config.values.state as string)), kept: true } });
    const r = await rt.call("file_write", { path: "b.txt", content: "x" }, { ...caller([]), dryRun: true });
    await rt.close();
    expect(r.envelope).toMatchObject({ status: "success", payload: { dry_run: true, would_run: false } });
    expect(kept!.query("SELECT count(*) AS n FROM journal").get()).toEqual({ n: 0 });
    kept!.close();
  });
});
