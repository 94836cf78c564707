// A one-shot call's spans go to a reaper that starts only once the call has exited (a shell waits,
// without CPU, on a pipe the call holds): the reaper's own start-up never competes with the call's
// last milliseconds. A call that lingers does not hold its spans back: 300 ms after the hand-over
// the reaper starts anyway.
// Full suite only: the reaper is a real process, started 300 ms after the hand-off.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers.ts";
import { eventually } from "../support/wait.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "telemetry", "reap-after-exit.ts");

/** Whether the reaper has noted its start in `mark`: a whole line (the file exists, empty, a moment before its line is in it). */
const marked = (mark: string) => existsSync(mark) && readFileSync(mark, "utf8").endsWith("\n");

async function handOver(lingerMs: number, mark: string) {
  const p = Bun.spawn([process.execPath, FIXTURE, String(lingerMs)], {
    env: { ...process.env, MARK: mark },
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = p.stdout.getReader();
  const first = JSON.parse(new TextDecoder().decode((await reader.read()).value!).split("\n")[0]!) as {
    waiter: number;
    handedAt: number;
  };
  return { p, reader, ...first };
}

describe("handing a one-shot call's spans to the reaper", () => {
  test("the reaper is executed only once the call has exited; until then a shell waits on the call's pipe", async () => {
    await using dir = tempDir();
    const mark = join(dir.path, "mark");
    const { p, reader, waiter } = await handOver(150, mark);
    // While the call lives, the waiter is still the shell, and the reaper has not run.
    const exe = readlinkSync(`/proc/${waiter}/exe`);
    expect([exe.endsWith("sh") || exe.includes("dash") || exe.includes("bash"), existsSync(mark)]).toEqual([
      true,
      false,
    ]);
    let rest = "";
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += new TextDecoder().decode(r.value);
    expect(await p.exited).toBe(0);
    const { exitAt } = JSON.parse(rest.trim()) as { exitAt: number };
    expect(await eventually(() => marked(mark))).toBe(true);
    expect(Number(readFileSync(mark, "utf8").trim())).toBeGreaterThanOrEqual(exitAt);
  });

  test("a call that lingers: the reaper starts 300 ms after the hand-over anyway", async () => {
    await using dir = tempDir();
    const mark = join(dir.path, "mark");
    // The call lingers far longer than the reaper may take to start on a busy machine.
    const { p, handedAt } = await handOver(20_000, mark);
    expect(await eventually(() => marked(mark), 15_000)).toBe(true);
    expect(p.exitCode).toBeNull();
    expect(Number(readFileSync(mark, "utf8").trim()) - handedAt).toBeGreaterThanOrEqual(300);
    p.kill();
    await p.exited;
  });
});
