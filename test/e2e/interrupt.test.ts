// Ctrl-C is Ctrl-C, through dist/toolgate: SIGINT (or SIGTERM) to a running `call` ends the call's
// whole process tree and exits 130 (143), with a result and a journal row that say cancelled (or,
// for an MCP call the server may have acted on, interrupted) and name the signal, never a deadline.
import { Database } from "bun:sqlite";
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixtureRepo } from "../fixtures/gates/make-repo.ts";
import { gone, waitFor } from "../launcher/support.ts";
import { BIN, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const MORTAL = join(import.meta.dir, "..", "fixtures", "mcp", "mortal.ts");

/** dist/toolgate running in `cwd` (`await using`: killed when the test ends if it still runs). */
const start = (args: readonly string[], cwd: string) =>
  Bun.spawn([BIN, ...args], {
    cwd,
    env: { PATH: "/usr/bin:/bin", HOME: cwd, CI: "true" },
    stdout: "pipe",
    stderr: "pipe",
  });

/** Sends `signal` and waits for the exit: its code, the result printed, how long it took. */
async function interrupt(proc: ReturnType<typeof start>, signal: "SIGINT" | "SIGTERM") {
  const sent = performance.now();
  proc.kill(signal);
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { code, envelope: JSON.parse(out), ms: performance.now() - sent };
}

/** The pids of running `sleep MARKER` processes (a sleep with a number no other test uses). */
const sleepers = (marker: string) =>
  readdirSync("/proc").filter(
    (p) => /^\d+$/.test(p) && !gone(Number(p)) && read(`/proc/${p}/cmdline`) === `sleep\0${marker}\0`,
  );
const read = (p: string) => {
  try {
    return readFileSync(p, "utf8");
  } catch {
    return "";
  }
};
const marker = () => `${5000 + Math.floor(Math.random() * 1000)}.${Math.floor(Math.random() * 100)}`;

function journalRows(workspace: string, tool: string) {
  const db = new Database(join(workspace, ".toolgate", "toolgate.db"), { readonly: true });
  try {
    return db.query("SELECT event, status, error_code, detail FROM journal WHERE tool = ?").all(tool);
  } finally {
    db.close();
  }
}

describe("a signal to toolgate call", () => {
  test.each([
    ["SIGINT", 130],
    ["SIGTERM", 143],
  ] as const)(
    "%s during bash: the tree is ended, exit %d, the result and the journal say cancelled with the signal",
    async (signal, exit) => {
      await using dir = tempDir();
      const m = marker();
      await using proc = start(
        [
          "call",
          "bash",
          JSON.stringify({ command: `sleep ${m} & touch started; wait` }),
          "--allow-run",
          "--approve",
          "bash",
        ],
        dir.path,
      );
      await waitFor(
        "the command to run",
        () => existsSync(join(dir.path, "started")) && sleepers(m).length === 1,
        10_000,
      );
      const r = await interrupt(proc, signal);
      expect(r.code).toBe(exit);
      expect(r.ms).toBeLessThan(5_000);
      expect(r.envelope).toMatchObject({
        status: "failed",
        tool: "bash",
        error_code: "cancelled",
        details: { signal, ended: "cancelled" },
      });
      expect(r.envelope.message).toStartWith(`interrupted by ${signal}: `);
      expect(sleepers(m)).toEqual([]);
      expect(journalRows(dir.path, "bash")).toEqual([
        { event: "tool_finished", status: "failed", error_code: "cancelled", detail: JSON.stringify({ signal }) },
      ]);
    },
  );

  test("SIGINT during an MCP call: exit 130, indeterminate and worded as interrupted, never a deadline", async () => {
    await using dir = tempDir();
    const calls = join(dir.path, "calls");
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({ mcpServers: { m: { command: process.execPath, args: [MORTAL, `--calls-out=${calls}`] } } }),
    );
    await using proc = start(["call", "m__slow", "{}", "--allow-run", "--approve", "all"], dir.path);
    // The server has the call (it writes the tool's name as the call reaches it).
    await waitFor("the server to get the call", () => read(calls) === "slow\n", 15_000);
    const r = await interrupt(proc, "SIGINT");
    expect(r.code).toBe(130);
    expect(r.ms).toBeLessThan(5_000);
    expect(r.envelope).toMatchObject({
      status: "indeterminate",
      tool: "m__slow",
      error_code: "interrupted",
      details: { signal: "SIGINT" },
    });
    expect(r.envelope.message).toStartWith("interrupted by SIGINT: ");
    expect(r.envelope.message).toContain("the remote effect is unknown");
    expect(r.envelope.message).not.toMatch(/deadline|within/);
    expect(journalRows(dir.path, "m__slow")).toEqual([
      {
        event: "tool_finished",
        status: "indeterminate",
        error_code: "interrupted",
        detail: JSON.stringify({ signal: "SIGINT" }),
      },
    ]);
    // Never replayed: the server saw the call once.
    expect(read(calls)).toBe("slow\n");
  });

  test("SIGINT during dev_check: the running gate's tree is ended, exit 130, cancelled", async () => {
    await using repo = fixtureRepo({ changes: false });
    const m = marker();
    writeFileSync(join(repo.path, "script", "check-slow.sh"), `sleep ${m} &\nwait\n`);
    await using proc = start(
      ["call", "dev_check", '{"gate":"slow"}', "--allow-run=bash,git", "--approve", "dev_check"],
      repo.path,
    );
    await waitFor("the gate to run", () => sleepers(m).length === 1, 15_000);
    const r = await interrupt(proc, "SIGINT");
    expect(r.code).toBe(130);
    expect(r.ms).toBeLessThan(5_000);
    expect(r.envelope).toMatchObject({
      status: "failed",
      tool: "dev_check",
      error_code: "cancelled",
      details: { signal: "SIGINT" },
    });
    expect(sleepers(m)).toEqual([]);
    expect(journalRows(repo.path, "dev_check")).toEqual([
      {
        event: "tool_finished",
        status: "failed",
        error_code: "cancelled",
        detail: JSON.stringify({ signal: "SIGINT" }),
      },
    ]);
  });
});
