// The journal before the effect: a state folder that cannot be written
// stops the call before anything runs (exit 5, the effect never happens); a call's row is
// written "tool_started" before its adapter runs and finished after, so a toolgate killed
// mid-call leaves a row that `toolgate log` shows as indeterminate.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, onTty, run, tempDir } from "../helpers.ts";
import { waitFor } from "../support/wait.ts";

const BASH = ["--allow-run=bash", "--approve", "bash"];
const MARK = JSON.stringify({ command: "touch marker" });

const rows = async (cwd: string, extra: string[] = []) => {
  const r = await run(["log", "--json", ...extra], { cwd });
  expect(r.code).toBe(0);
  return r.stdout.trim()
    ? r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
    : [];
};

/** Runs a shell script in a private mount namespace (tmpfs and read-only binds die with it). */
async function inMountNamespace(cwd: string, script: string) {
  const unshare = process.getuid?.() === 0 ? ["unshare", "-m"] : ["unshare", "-rm"];
  const p = Bun.spawn([...unshare, "bash", "-c", script], {
    cwd,
    env: { PATH: "/usr/bin:/bin", HOME: cwd, CI: "true", TG: BIN },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  return { stdout, stderr, code };
}

describe("a state that cannot be written: exit 5 before anything runs", () => {
  test('"state": "/dev/null" (a trusted --config): the message names the folder and the key; bash never ran', async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "cfg.json"), '{"state": "/dev/null"}');
    const r = await run(["call", "bash", MARK, ...BASH, "--config", join(dir.path, "cfg.json")], { cwd: dir.path });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("the state folder /dev/null cannot be written");
    expect(r.stderr).toContain(`state, from file:${join(dir.path, "cfg.json")}:1`);
    expect(r.stderr).not.toContain("internal error");
    expect(existsSync(join(dir.path, "marker"))).toBe(false);
  });

  test("a file where the state folder would be: exit 5, bash never ran", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, ".toolgate"), "not a folder\n");
    const r = await run(["call", "bash", MARK, ...BASH], { cwd: dir.path });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`the state folder ${join(dir.path, ".toolgate")} cannot be written`);
    expect(existsSync(join(dir.path, "marker"))).toBe(false);
  });

  test("a read-only state folder: exit 5, bash never ran, the journal is as it was", async () => {
    await using dir = tempDir();
    const r = await inMountNamespace(
      dir.path,
      `set -e
       "$TG" call file_read '{"path":"."}' --allow-read --approve file_read >/dev/null || true
       mount --bind .toolgate .toolgate && mount -o remount,bind,ro .toolgate
       set +e
       "$TG" call bash '${MARK}' ${BASH.join(" ")}; echo "rc=$?"`,
    );
    expect(r.stdout).toContain("rc=5");
    expect(r.stderr).toContain(`the state folder ${join(dir.path, ".toolgate")} cannot be written`);
    expect(existsSync(join(dir.path, "marker"))).toBe(false);
    expect((await rows(dir.path)).map((x) => x.tool)).toEqual(["file_read"]);
  });

  test("a full disk: exit 5, bash never ran", async () => {
    await using dir = tempDir();
    const r = await inMountNamespace(
      dir.path,
      `set -e
       mkdir .toolgate && mount -t tmpfs -o size=256k,mode=0700 tmpfs .toolgate
       "$TG" call file_read '{"path":"."}' --allow-read --approve file_read >/dev/null || true
       dd if=/dev/zero of=.toolgate/fill bs=4k 2>/dev/null || true
       set +e
       "$TG" call bash '${MARK}' ${BASH.join(" ")}; echo "rc=$?"`,
    );
    expect(r.stdout).toContain("rc=5");
    expect(r.stderr).toContain(`the state folder ${join(dir.path, ".toolgate")} cannot be written`);
    expect(r.stderr).not.toContain("internal error");
    expect(existsSync(join(dir.path, "marker"))).toBe(false);
  });
});

describe("started, then finished", () => {
  test("a disk that fills during the call: the result is still printed, the operator told, the row indeterminate", async () => {
    await using dir = tempDir();
    const fill = JSON.stringify({ command: "dd if=/dev/zero of=.toolgate/fill bs=4k 2>/dev/null; echo filled" });
    const r = await inMountNamespace(
      dir.path,
      `mkdir .toolgate && mount -t tmpfs -o size=512k,mode=0700 tmpfs .toolgate || exit 99
       "$TG" call bash '${fill}' ${BASH.join(" ")}; echo "rc=$?"
       rm .toolgate/fill
       "$TG" log --json`,
    );
    const [result, rc, row] = r.stdout.trim().split("\n");
    expect(JSON.parse(result!)).toMatchObject({ tool: "bash" });
    expect(rc).toMatch(/^rc=[0-9]$/);
    expect(r.stderr).toContain("this call's journal row was not finished; `toolgate log` shows it as indeterminate");
    expect(JSON.parse(row!)).toMatchObject({
      event: "tool_started",
      tool: "bash",
      status: "indeterminate",
      error_code: "journal.unfinished",
    });
  });

  test("a call that ran leaves one finished row; refused calls one row each, as before", async () => {
    await using dir = tempDir();
    expect((await run(["call", "bash", MARK, ...BASH], { cwd: dir.path })).code).toBe(0);
    expect((await run(["call", "no_such_tool", "{}"], { cwd: dir.path })).code).toBe(1);
    expect((await run(["call", "bash", "{}", ...BASH], { cwd: dir.path })).code).toBe(1);
    expect((await run(["call", "bash", MARK], { cwd: dir.path })).code).toBe(4);
    const all = await rows(dir.path);
    expect(all.map((x) => [x.event, x.tool, x.status, x.error_code])).toEqual([
      ["tool_finished", "bash", "success", null],
      ["tool_finished", "no_such_tool", "failed", "unknown_tool"],
      ["tool_finished", "bash", "failed", "args.invalid"],
      ["tool_finished", "bash", "failed", "permission.denied"],
    ]);
  });

  test("kill -9 of toolgate mid-call: the row is running while it runs, then indeterminate", async () => {
    await using dir = tempDir();
    const cmd = JSON.stringify({ command: "echo $$ > child.pid; touch started; exec sleep 60" });
    const proc = Bun.spawn([BIN, "call", "bash", cmd, ...BASH], {
      cwd: dir.path,
      env: { PATH: "/usr/bin:/bin", HOME: dir.path, CI: "true" },
      stdout: "ignore",
      stderr: "ignore",
    });
    try {
      await waitFor("the command to start", () => existsSync(join(dir.path, "started")));
      expect(existsSync(join(dir.path, "started"))).toBe(true);
      expect((await rows(dir.path)).map((x) => [x.event, x.status])).toEqual([["tool_started", "running"]]);
      proc.kill("SIGKILL");
      await proc.exited;
    } finally {
      proc.kill("SIGKILL");
      const pidFile = join(dir.path, "child.pid");
      const child = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8")) : 0;
      if (child > 1) process.kill(child, "SIGKILL");
    }
    const [row] = await rows(dir.path);
    expect(row).toMatchObject({
      event: "tool_started",
      tool: "bash",
      status: "indeterminate",
      error_code: "journal.unfinished",
      args_preview: cmd,
    });
    const table = await onTty(dir.path, ["log"], "");
    expect(table.out).toMatch(/bash\s+indeterminate\s+journal\.unfinished/);
  });
});
