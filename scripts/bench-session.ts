// Session benchmark (on demand, not in `bun test`), the session rows in one run:
// - a forwarded `call everything__echo` (server-everything alive in the session) and a forwarded
//   `call file_read`, one process each, interleaved with a hello-world compiled with toolgate's
//   flags (the floor) and a cold `call file_read`: medians over the floor;
// - N sequential forwarded MCP calls from a bash loop (BENCH_CALLS, default 100), whole loop;
// - the session's RSS with server-everything attached, right after those calls and once idle (2 s).
// BENCH_BASELINE=/path/to/an/older/toolgate: its own session in a second workspace, the same
// cases in the same rounds. BENCH_PEERS=1 adds the cold loop and mcporter's keep-alive daemon.
// BENCH_RUNS=N rounds (default 30).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildHello, evictFromCache, interleave, loadavg, med, ms, plus, row, type Case } from "./bench-lib.ts";

const root = join(import.meta.dir, "..");
// BENCH_BIN: the binary under test (default dist/toolgate).
const bin = process.env.BENCH_BIN ?? join(root, "dist", "toolgate");
const baseline = process.env.BENCH_BASELINE;
const N = Number(process.env.BENCH_CALLS ?? 100);
const runs = Number(process.env.BENCH_RUNS ?? 30);
const peers = process.env.BENCH_PEERS === "1";
const work = mkdtempSync(join(tmpdir(), "toolgate-bench-session-"));
const node = Bun.which("node") ?? "/usr/bin/node";
const everything = join(root, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const mcporter = join(root, "node_modules", "mcporter", "dist", "cli.js");
// The user's state folder (where a session's socket lives) outside the workspaces, as a session requires.
const user = mkdtempSync(join(tmpdir(), "toolgate-bench-user-"));
const env = { PATH: "/usr/bin:/bin", HOME: work, XDG_STATE_HOME: join(user, "state"), CI: "true" };
const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Wall time of bash loops running `cmd` `n` times in `cwd` (its output checked once, then discarded). */
function loop(name: string, cmd: string[], expect: string, cwd: string, n = N): number {
  const once = Bun.spawnSync(["bash", "-c", cmd.map(q).join(" ")], { cwd, env });
  if (!once.stdout.toString().includes(expect))
    throw new Error(`${name}: unexpected output ${once.stdout} ${once.stderr}`);
  const t0 = performance.now();
  const r = Bun.spawnSync(
    ["bash", "-c", `for i in $(seq ${n}); do ${cmd.map(q).join(" ")} >/dev/null || exit 1; done`],
    { cwd, env },
  );
  const took = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`${name}: the loop failed: ${r.stderr.toString()}`);
  return took;
}

/** N calls of each, as loops of 10 taken in turn (machine noise hits each alike): total wall time of each. */
function loops(cases: readonly [string, string[], string, string][]): Record<string, number> {
  const total: Record<string, number> = Object.fromEntries(cases.map(([n]) => [n, 0]));
  for (let done = 0; done < N; done += 10)
    for (const [name, cmd, expect, cwd] of cases) total[name]! += loop(name, cmd, expect, cwd, Math.min(10, N - done));
  return total;
}

const sh = (args: string[], cwd: string) => {
  const r = Bun.spawnSync(args, { cwd, env });
  if (r.exitCode !== 0) throw new Error(`${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString();
};

/** A workspace with server-everything configured, its catalog cache warm, and a session started by `exe`. */
function workspace(name: string, exe: string): string {
  const ws = join(work, name);
  mkdirSync(ws);
  writeFileSync(join(ws, "README.md"), "# bench\n\nsome text\n".repeat(20));
  writeFileSync(
    join(ws, "toolgate.json"),
    JSON.stringify({ mcpServers: { everything: { command: node, args: [everything, "stdio"] } } }),
  );
  sh([exe, "tools", "--allow-run"], ws);
  // Read back from disk as any start reads it: a fresh build's pages sit in large folios (bench-lib.ts, peakRss).
  evictFromCache(exe);
  sh([exe, "session", "start", "--idle-secs", "600"], ws);
  return ws;
}

/** The session's resident memory now and at its peak, MB (its own process). */
function rss(exe: string, ws: string): { now: number; peak: number; calls: number; servers: number } {
  const st = JSON.parse(sh([exe, "session", "status", "--json"], ws));
  const proc = readFileSync(`/proc/${st.pid}/status`, "utf8");
  const kb = (k: string) => Number(proc.match(new RegExp(`${k}:\\s+(\\d+)`))?.[1] ?? 0);
  return {
    now: Math.round(kb("VmRSS") / 102.4) / 10,
    peak: Math.round(kb("VmHWM") / 102.4) / 10,
    calls: st.calls,
    servers: st.servers.length,
  };
}

const echo = ["call", "everything__echo", '{"message":"hi"}', "--allow-run", "--approve", "all"];
const read = ["call", "file_read", '{"path":"README.md"}', "--allow-read", "--approve", "file_read"];
const started: [string, string][] = [];

try {
  const hello = buildHello(work);
  const ws = workspace("ws", bin);
  started.push([bin, ws]);
  const base = baseline ? workspace("base", baseline) : undefined;
  if (baseline && base) started.push([baseline, base]);
  const at = (cwd: string, until: string) => ({ cwd, env, until });
  const cases: Case[] = [
    { name: "floor", cmd: [hello], opts: at(ws, "hello") },
    { name: "echo", cmd: [bin, ...echo], opts: at(ws, "Echo: hi") },
    { name: "file_read", cmd: [bin, ...read], opts: at(ws, '"status":"success"') },
    { name: "cold file_read", cmd: [bin, ...read, "--no-session"], opts: at(ws, '"status":"success"') },
    ...(baseline && base
      ? [
          { name: "baseline echo", cmd: [baseline, ...echo], opts: at(base, "Echo: hi") },
          { name: "baseline file_read", cmd: [baseline, ...read], opts: at(base, '"status":"success"') },
        ]
      : []),
  ];
  const s = await interleave(cases, runs);
  const floor = med(s, "floor", "wall");
  const over = (n: string) => `hello ${plus(med(s, n, "wall") - floor)} (CPU ${ms(med(s, n, "cpu"))})`;
  const looped = loops([
    ["session", [bin, ...echo], "Echo: hi", ws],
    ...(baseline && base
      ? [["baseline", [baseline, ...echo], "Echo: hi", base] as [string, string[], string, string]]
      : []),
    ["floor", [hello], "hello", ws],
  ]);
  const busy = rss(bin, ws);
  const baseBusy = baseline && base ? rss(baseline, base) : undefined;
  // And once idle (2 s after the last call): what the session holds while it waits for the next one.
  await Bun.sleep(2_000);
  const mem = rss(bin, ws);
  const baseMem = baseline && base ? rss(baseline, base) : undefined;
  console.log(
    `session, ${runs} interleaved rounds, then the loops in turns of 10 (load ${loadavg()}); floor: compiled hello-world ${ms(floor)}, ${N} of them in a loop ${(looped.floor! / 1000).toFixed(2)} s`,
  );
  console.log(
    row(
      "MCP call through the warm session",
      over("echo"),
      "hello + 6 ms",
      baseline ? over("baseline echo") : undefined,
    ),
  );
  console.log(
    row(
      `${N} MCP calls from a shell loop, session`,
      `${(looped.session! / 1000).toFixed(2)} s`,
      `<= ${((1.2 * N) / 100).toFixed(2)} s`,
      looped.baseline ? `${(looped.baseline / 1000).toFixed(2)} s` : undefined,
    ),
  );
  console.log(
    row(
      "session RSS with server-everything, idle",
      `${mem.now} MB (peak ${mem.peak})`,
      "<= 60 MB",
      baseMem ? `${baseMem.now} MB (peak ${baseMem.peak})` : undefined,
    ),
  );
  console.log(row("  right after the calls", `${busy.now} MB`, "", baseBusy ? `${baseBusy.now} MB` : undefined));
  console.log(
    row(
      "call file_read through the warm session",
      over("file_read"),
      `(cold: ${over("cold file_read")})`,
      baseline ? over("baseline file_read") : undefined,
    ),
  );
  const report: Record<string, unknown> = {
    load: loadavg(),
    floor_ms: +floor.toFixed(2),
    loops: looped,
    rss: mem,
    rss_busy: busy,
    ...(baseMem ? { baseline_rss: baseMem } : {}),
  };
  for (const c of cases)
    report[c.name] = { wall_ms: +med(s, c.name, "wall").toFixed(2), cpu_ms: +med(s, c.name, "cpu").toFixed(2) };

  if (peers) {
    // The same loop cold, and through mcporter's keep-alive daemon (bun).
    mkdirSync(join(work, "config"));
    writeFileSync(
      join(work, "config", "mcporter.json"),
      JSON.stringify({
        mcpServers: { everything: { command: node, args: [everything, "stdio"], lifecycle: "keep-alive" } },
      }),
    );
    const cold = loop("cold", [bin, ...echo, "--no-session"], "Echo: hi", ws);
    sh([process.execPath, mcporter, "daemon", "start"], work);
    const viaDaemon = loop(
      "mcporter",
      [process.execPath, mcporter, "call", "everything.echo", "message=hi"],
      "Echo: hi",
      work,
    );
    sh([process.execPath, mcporter, "daemon", "stop"], work);
    console.log(
      `${N} MCP calls, cold: ${(cold / 1000).toFixed(2)} s; mcporter's keep-alive daemon: ${(viaDaemon / 1000).toFixed(2)} s; the session ${(cold / looped.session!).toFixed(1)}x and ${(viaDaemon / looped.session!).toFixed(1)}x faster`,
    );
    Object.assign(report, { cold_loop: cold, mcporter_loop: viaDaemon });
  }
  console.log(JSON.stringify(report));
} finally {
  for (const [exe, ws] of started) Bun.spawnSync([exe, "session", "stop"], { cwd: ws, env });
  rmSync(work, { recursive: true, force: true });
  rmSync(user, { recursive: true, force: true });
}
