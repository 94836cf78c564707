// Background tasks benchmark (on demand, not in `bun test`): the time from
// `call desk {} --background` to its printed task id against a foreground `call desk {}`
// (target: within 15 ms), and `tasks list --json` with 10,000 tasks in the database against the
// same command on an empty one (the floor; target: under 30 ms above it). Medians, alternated runs.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const bin = join(root, "dist", "toolgate");
const N = Number(process.env.BENCH_RUNS ?? 21);
const work = mkdtempSync(join(tmpdir(), "toolgate-bench-tasks-"));
const env = { PATH: "/usr/bin:/bin", HOME: work, XDG_STATE_HOME: join(work, ".user-state"), CI: "true" };

function time(cwd: string, args: string[]): number {
  const t0 = performance.now();
  const r = Bun.spawnSync([bin, ...args], { cwd, env, stdout: "pipe", stderr: "pipe" });
  const ms = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`${args.join(" ")}: exit ${r.exitCode}: ${r.stderr.toString()}`);
  return ms;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function pair(name: string, a: [string, string[]], b: [string, string[]]): void {
  time(...a);
  time(...b); // warm the page cache and the state folders
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < N; i++) {
    ta.push(time(...a));
    tb.push(time(...b));
  }
  const [ma, mb] = [median(ta), median(tb)];
  console.log(`${name}: ${mb.toFixed(1)} ms vs ${ma.toFixed(1)} ms (median of ${N}): +${(mb - ma).toFixed(1)} ms`);
}

try {
  const one = join(work, "one");
  const full = join(work, "full");
  const empty = join(work, "empty");
  for (const d of [one, full, empty]) Bun.spawnSync(["mkdir", "-p", d]);
  pair(
    "call --background (to the printed id) against a foreground call of desk",
    [one, ["call", "desk", "{}"]],
    [one, ["call", "desk", "{}", "--background"]],
  );
  // 10,000 ended tasks in one lane (the database made by toolgate itself, rows added here).
  time(full, ["call", "desk", "{}"]);
  time(empty, ["call", "desk", "{}"]);
  const db = new Database(join(full, ".toolgate", "toolgate.db"));
  db.transaction(() => {
    const q = db.query(
      `INSERT INTO tasks (id, kind, owner, source_tool, args_preview, status, summary, exit_reason, result, created_ms, started_ms, ended_ms)
       VALUES ($id, 'tool.call', 'default', 'desk', '{}', 'succeeded', 'desk succeeded', 'success', '{"status":"success"}', $t, $t, $t)`,
    );
    for (let i = 0; i < 10_000; i++) q.run({ id: i.toString(16).padStart(16, "0"), t: 1_700_000_000_000 + i });
  })();
  db.close();
  pair(
    "tasks list --json with 10,000 tasks against an empty database",
    [empty, ["tasks", "list", "--json"]],
    [full, ["tasks", "list", "--json"]],
  );
} finally {
  // Tasks started above have ended (desk is instant); their supervisors are gone with the folder.
  Bun.sleepSync(2_000);
  rmSync(work, { recursive: true, force: true });
}
