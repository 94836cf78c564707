// Delegation benchmark (on demand, not in `bun test`): a scout `task`
// whose fixture child (test/fixtures/delegate/agent.ts) makes one file_read, against the same
// child connecting to `toolgate serve --profile scout --child` directly. Medians of N runs of:
//   direct   the agent + its serve, wall time from outside;
//   task     `toolgate call task` wall time from outside (parent cold start included), and the
//            task call's own duration_ms from the journal (what delegation adds is that minus direct);
//   cold     `toolgate call plan` (the parent's start alone).
// Target: task's duration_ms within 100 ms of direct.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const BIN = join(root, "dist", "toolgate");
const AGENT = join(root, "test", "fixtures", "delegate", "agent.ts");
const N = Number(process.env.N ?? 15);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const env = { PATH: "/usr/bin:/bin", CI: "true" };

const dir = mkdtempSync(join(tmpdir(), "bench-delegate-"));
try {
  const ws = join(dir, "ws");
  mkdirSync(ws);
  writeFileSync(join(ws, "a.txt"), "one\ntwo\n");
  const cfg = join(dir, "cfg.json");
  writeFileSync(
    cfg,
    JSON.stringify({ workspace: ws, delegation: { command: [process.execPath, AGENT, "{objective}", "{server}"] } }),
  );
  const objective = JSON.stringify({ calls: [{ tool: "file_read", args: { path: "a.txt" } }] });
  const state = join(dir, "direct-state");
  const direct = [
    process.execPath,
    AGENT,
    objective,
    BIN,
    "serve",
    "--profile",
    "scout",
    "--child",
    "--quiet",
    "--config",
    cfg,
    "--workspace",
    ws,
    "--state",
    state,
    `--allow-read=${ws}`,
    "--approve",
    "file_read,file_find,file_search,skill_list,skill_load",
  ];
  const task = [
    BIN,
    "call",
    "task",
    JSON.stringify({ objective, kind: "scout" }),
    "--config",
    cfg,
    "--allow-read",
    "--approve",
    "task",
    "--no-session",
  ];
  const cold = [BIN, "call", "plan", "{}", "--config", cfg, "--no-session"];
  // The direct agent gets the launcher's environment (no HOME: bun's transpiler cache is then off
  // for the agent in both runs), so what differs is toolgate's part alone.
  const scrubbed = {
    PATH: "/usr/bin:/bin:/usr/sbin:/sbin:/opt/homebrew/bin:/usr/local/bin",
    LANG: "C.UTF-8",
    LC_ALL: "C.UTF-8",
  };
  const time = (argv: string[]) => {
    const t = performance.now();
    const r = Bun.spawnSync(argv, {
      cwd: ws,
      env: argv === direct ? scrubbed : { ...env, HOME: dir },
      stdout: "pipe",
      stderr: "pipe",
    });
    if (r.exitCode !== 0) throw new Error(`${argv.slice(0, 3).join(" ")} failed: ${r.stderr.toString()}`);
    return performance.now() - t;
  };
  // Warm the page cache once each.
  time(direct), time(task), time(cold);
  const d: number[] = [],
    t: number[] = [],
    c: number[] = [];
  for (let i = 0; i < N; i++) {
    d.push(time(direct));
    t.push(time(task));
    c.push(time(cold));
  }
  const log = Bun.spawnSync([BIN, "log", "--json", "--config", cfg], {
    cwd: ws,
    env: { ...env, HOME: dir },
    stdout: "pipe",
  });
  const durations = log.stdout
    .toString()
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .filter((r) => r.tool === "task")
    .slice(-N)
    .map((r) => r.duration_ms as number);
  const md = median(d),
    mt = median(t),
    mc = median(c),
    mj = median(durations);
  console.log(`runs: ${N}, load average ${(await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ")}`);
  console.log(`direct (agent + serve):          ${md.toFixed(0)} ms`);
  console.log(`call task (wall, cold parent):   ${mt.toFixed(0)} ms`);
  console.log(`call plan (parent cold start):   ${mc.toFixed(0)} ms`);
  console.log(`task duration_ms (journal):      ${mj.toFixed(0)} ms`);
  console.log(`delegation overhead (task duration - direct): ${(mj - md).toFixed(0)} ms (target < 100)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
