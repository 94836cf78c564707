// Start-up benchmark (run on demand, not in `bun test`): median wall time and peak RSS of
// dist/toolgate on its hot paths, side by side with a bare `bun build --compile` hello-world
// built with the same flags in the same run (the floor). Then the output boundary bench.
// Targets (issue 2): each path at most 30 ms above the floor, peak RSS at most 45 MB.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const bin = join(root, "dist", "toolgate");
const runs = Number(process.env.BENCH_RUNS ?? 40);
const work = mkdtempSync(join(tmpdir(), "toolgate-bench-"));

try {
  writeFileSync(join(work, "hello.ts"), 'process.stdout.write("hello\\n");\n');
  // Built in a child process: a bundler run would grow this process, and a forked child's
  // peak RSS counts the parent's pages it was forked from.
  const built = Bun.spawnSync(
    [process.execPath, "build", "--compile", "--minify", "--bytecode", "--format=esm", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", join(work, "hello.ts"), "--outfile", join(work, "hello")],
    { stdout: "ignore", stderr: "pipe" },
  );
  if (built.exitCode !== 0) throw new Error(`could not build the hello-world floor: ${built.stderr.toString()}`);
  writeFileSync(join(work, "README.md"), "# bench\n\nsome text\n".repeat(20));

  const cases: [string, string[]][] = [
    ["floor: compiled hello-world", [join(work, "hello")]],
    ["toolgate tools --json", [bin, "tools", "--json"]],
    ["toolgate call file_read README.md", [bin, "call", "file_read", '{"path":"README.md"}', "--allow-read", "--approve", "file_read"]],
    ["toolgate --version", [bin, "--version"]],
    // BENCH_BASELINE=path/to/an/older/toolgate: the same call and listing by that binary, in the same run (before/after).
    ...(process.env.BENCH_BASELINE
      ? [
          ["baseline: tools --json", [process.env.BENCH_BASELINE, "tools", "--json"]] as [string, string[]],
          ["baseline: call file_read README.md", [process.env.BENCH_BASELINE, "call", "file_read", '{"path":"README.md"}', "--allow-read", "--approve", "file_read"]] as [string, string[]],
        ]
      : []),
  ];
  const env = { PATH: "/usr/bin:/bin", HOME: work, CI: "true" };
  const samples = new Map<string, { wall: number[]; rss: number[] }>(cases.map(([n]) => [n, { wall: [], rss: [] }]));
  // Interleaved, so machine noise hits every case alike; first round is warm-up.
  for (let i = 0; i <= runs; i++) {
    for (const [name, cmd] of cases) {
      const t0 = performance.now();
      const p = Bun.spawn(cmd, { cwd: work, env, stdout: "pipe", stderr: "pipe" });
      const [code, , err] = await Promise.all([p.exited, new Response(p.stdout).arrayBuffer(), new Response(p.stderr).text()]);
      const wall = performance.now() - t0;
      if (code !== 0) throw new Error(`${name} exited ${code}: ${err}`);
      if (i === 0) continue;
      samples.get(name)!.wall.push(wall);
      samples.get(name)!.rss.push(p.resourceUsage()!.maxRSS);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const q = (xs: number[], f: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * f)]!;
  const floor = median(samples.get(cases[0]![0])!.wall);
  const report: Record<string, unknown> = {};
  console.log(`runs: ${runs} each, interleaved; median wall (p10..p90), peak RSS`);
  for (const [name] of cases) {
    const s = samples.get(name)!;
    const m = median(s.wall);
    const rssMb = median(s.rss) / 1e6; // maxRSS is in bytes
    console.log(
      `${name.padEnd(36)} ${m.toFixed(1).padStart(6)} ms (${q(s.wall, 0.1).toFixed(1)}..${q(s.wall, 0.9).toFixed(1)})  +${(m - floor).toFixed(1).padStart(5)} ms over floor  ${rssMb.toFixed(1).padStart(5)} MB`,
    );
    report[name] = { median_ms: +m.toFixed(2), over_floor_ms: +(m - floor).toFixed(2), rss_mb: +rssMb.toFixed(1) };
  }
  console.log(JSON.stringify(report));
} finally {
  rmSync(work, { recursive: true, force: true });
}

console.log("\noutput boundary (worst-case accepted result, one process):");
const boundary = Bun.spawnSync([process.execPath, join(root, "scripts", "bench-boundary.ts")], { stdout: "inherit", stderr: "inherit" });
process.exitCode = boundary.exitCode ?? 1;
