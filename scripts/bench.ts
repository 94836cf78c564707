// Start-up benchmark (run on demand, not in `bun test`): the start-up rows of the table,
// each against a bare hello-world compiled with toolgate's flags in the same run (the floor):
// `--version`, a cold `call file_read`, a cold `tools --json` and the thin start of a client that
// finds no session; wall time and CPU time over the floor (medians of interleaved runs) and peak
// RSS. BENCH_RUNS=N (default 40); BENCH_BASELINE=/path/to/an/older/toolgate runs its same commands
// in the same rounds (before/after); BENCH_OTEL=1 adds the cold call with telemetry on (OTEL_* set, a
// loopback OTLP receiver; the reaper that sends the spans runs after the measured process ends, and
// the next run waits until it has sent them), and its paired difference to the call without.
// Then the output boundary bench.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  buildHello,
  interleave,
  loadavg,
  med,
  median,
  ms,
  peakRss,
  plus,
  quantile,
  row,
  type Case,
} from "./bench-lib.ts";

const root = join(import.meta.dir, "..");
// BENCH_BIN: the binary under test (default dist/toolgate).
const bin = process.env.BENCH_BIN ?? join(root, "dist", "toolgate");
const baseline = process.env.BENCH_BASELINE;
const runs = Number(process.env.BENCH_RUNS ?? 40);
const work = mkdtempSync(join(tmpdir(), "toolgate-bench-"));

try {
  const hello = buildHello(work);
  const bare = buildHello(work, true);
  writeFileSync(join(work, "README.md"), "# bench\n\nsome text\n".repeat(20));
  const env = { PATH: "/usr/bin:/bin", HOME: work, XDG_STATE_HOME: join(work, ".state"), CI: "true" };
  const opts = { cwd: work, env };
  const commands: [string, string[]][] = [
    ["--version", ["--version"]],
    ["call file_read", ["call", "file_read", '{"path":"README.md"}', "--allow-read", "--approve", "file_read"]],
    ["tools --json", ["tools", "--json"]],
  ];
  let received = 0;
  const collector = process.env.BENCH_OTEL
    ? Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        fetch: async (req) => (await req.arrayBuffer(), received++, new Response("")),
      })
    : undefined;
  const otel = "call file_read, telemetry on";
  const otelEnv = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector?.port}` };
  // The reaper sends the call's span after the call: the next run waits until it has (at most 2 s),
  // so that no run shares the CPU with the one before.
  const sent = async () => {
    const before = received;
    for (let i = 0; i < 200 && received === before; i++) await Bun.sleep(10);
  };
  const cases: Case[] = [
    { name: "floor", cmd: [hello], opts },
    { name: "bare", cmd: [bare], opts },
    // A call's time to result (its first line on stdout) is kept beside its whole process.
    ...commands.map(([name, argv]) => ({
      name,
      cmd: [bin, ...argv],
      opts: name.startsWith("call") ? { ...opts, until: '"status"' } : opts,
    })),
    ...(baseline
      ? commands.map(([name, argv]) => ({
          name: `baseline ${name}`,
          cmd: [baseline, ...argv],
          opts: name.startsWith("call") ? { ...opts, until: '"status"' } : opts,
        }))
      : []),
    ...(collector
      ? [
          {
            name: otel,
            cmd: [bin, ...commands[1]![1]],
            opts: { cwd: work, env: otelEnv, until: '"status"' },
            after: sent,
          },
        ]
      : []),
    ...(collector && baseline
      ? [
          {
            name: `baseline ${otel}`,
            cmd: [baseline, ...commands[1]![1]],
            opts: { cwd: work, env: otelEnv, until: '"status"' },
            after: sent,
          },
        ]
      : []),
  ];
  const samples = await interleave(cases, runs);
  // Peak RSS measured apart, through GNU time (bench-lib.ts: a child of this process counts its pages).
  const rss = new Map(cases.map((c) => [c.name, peakRss(c.cmd, c.opts)]));
  const mb = (name: string) => `${rss.get(name)!.toFixed(1)} MB`;
  const floor = { wall: med(samples, "floor", "wall"), cpu: med(samples, "floor", "cpu") };
  console.log(
    `start-up, ${runs} interleaved rounds (load ${loadavg()} at the end); floor: compiled hello-world ${ms(floor.wall)} wall, ${ms(floor.cpu)} CPU, ${mb("floor")}`,
  );
  console.log(
    `a bare start (console.log, no process.stdout): ${ms(med(samples, "bare", "wall"))} wall, ${ms(med(samples, "bare", "cpu"))} CPU, ${mb("bare")}`,
  );
  console.log("each: median wall over the floor (p10..p90 of the wall itself) | median CPU over the floor | peak RSS");
  const report: Record<string, unknown> = {
    load: loadavg(),
    floor_wall_ms: +floor.wall.toFixed(2),
    floor_cpu_ms: +floor.cpu.toFixed(2),
    bare_wall_ms: +med(samples, "bare", "wall").toFixed(2),
    bare_rss_mb: +rss.get("bare")!.toFixed(1),
  };
  const targets: Record<string, string> = {
    "--version": "hello + 3 ms",
    "call file_read": "hello + 10 ms, <= 30 MB",
    "tools --json": "hello + 8 ms",
  };
  const figure = (name: string) => {
    const s = samples.get(name)!.map((r) => r.wall);
    const result = name.includes("call file_read")
      ? ` (result: hello ${plus(med(samples, name, "result") - floor.wall)})`
      : "";
    return `hello ${plus(median(s) - floor.wall)}${result} (${ms(quantile(s, 0.1))}..${ms(quantile(s, 0.9))}) | CPU ${plus(med(samples, name, "cpu") - floor.cpu)} | ${mb(name)}`;
  };
  for (const [name] of commands) {
    console.log(row(`toolgate ${name}`, figure(name), targets[name]!));
    if (baseline) console.log(row(`  baseline ${name}`, figure(`baseline ${name}`), ""));
    for (const who of baseline ? [name, `baseline ${name}`] : [name]) {
      report[who] = {
        over_floor_ms: +(med(samples, who, "wall") - floor.wall).toFixed(2),
        result_over_floor_ms: +(med(samples, who, "result") - floor.wall).toFixed(2),
        cpu_over_floor_ms: +(med(samples, who, "cpu") - floor.cpu).toFixed(2),
        rss_mb: +rss.get(who)!.toFixed(1),
      };
    }
  }
  if (collector) {
    console.log(row(`toolgate ${otel}`, figure(otel), "call file_read + 1 ms"));
    const paired = (name: string, k: "wall" | "result" | "cpu") =>
      median(samples.get(name)!.map((r, i) => r[k] - samples.get("call file_read")![i]![k]));
    const over = (name: string) =>
      `wall ${plus(paired(name, "wall"))}, result ${plus(paired(name, "result"))}, CPU ${plus(paired(name, "cpu"))}`;
    console.log(
      `  over call file_read without telemetry (paired medians): ${over(otel)}${baseline ? `; baseline: ${over(`baseline ${otel}`)}` : ""}`,
    );
    report[otel] = {
      over_floor_ms: +(med(samples, otel, "wall") - floor.wall).toFixed(2),
      result_over_floor_ms: +(med(samples, otel, "result") - floor.wall).toFixed(2),
      cpu_over_floor_ms: +(med(samples, otel, "cpu") - floor.cpu).toFixed(2),
      rss_mb: +rss.get(otel)!.toFixed(1),
    };
    collector.stop(true);
  }
  console.log(JSON.stringify(report));
} finally {
  rmSync(work, { recursive: true, force: true });
}

console.log("\noutput boundary (worst-case accepted result, one process):");
const boundary = Bun.spawnSync([process.execPath, join(root, "scripts", "bench-boundary.ts")], {
  stdout: "inherit",
  stderr: "inherit",
});
process.exitCode = boundary.exitCode ?? 1;
