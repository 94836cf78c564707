// What the benchmarks share (run on demand, never in `bun test`): paired, interleaved runs of
// whole processes, medians, the machine's load, and a compiled hello-world floor. The machine is
// shared and noisy: every figure is read against a floor measured in the same rounds, and each run
// also records the process's CPU time (user + system, from wait4), which queues on a loaded
// machine stretch far less than wall time.
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
export const quantile = (xs: readonly number[], f: number) =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * f)] ?? NaN;

/** The 1, 5 and 15 minute load averages (2 cores here: above 2, runs queue for a core). */
export const loadavg = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

export interface Run {
  /** Whole process, ms. */
  wall: number;
  /** Until `until` first appeared on stdout (else the whole process), ms. */
  result: number;
  /** User + system CPU time of the process (not of what it left running), ms. */
  cpu: number;
  /** Peak resident set, MB. */
  rss: number;
  /** When the process was spawned, ms since the epoch (performance.timeOrigin + now): to set beside another process's clock. */
  start: number;
  out: string;
}

export interface RunOpts {
  cwd: string;
  env: Record<string, string>;
  /** Time to result: when this text first shows on stdout. */
  until?: string;
  stdin?: string;
}

/** One process, timed; a non-zero exit (or `until` never seen) throws with its output. */
export async function timed(cmd: readonly string[], o: RunOpts): Promise<Run> {
  const t0 = performance.now();
  const p = Bun.spawn([...cmd], {
    cwd: o.cwd,
    env: o.env,
    stdin: o.stdin === undefined ? "ignore" : new Blob([o.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const err = new Response(p.stderr).text();
  let out = "";
  let result = 0;
  const decoder = new TextDecoder();
  for await (const chunk of p.stdout) {
    out += decoder.decode(chunk, { stream: true });
    if (result === 0 && o.until !== undefined && out.includes(o.until)) result = performance.now() - t0;
  }
  const code = await p.exited;
  const wall = performance.now() - t0;
  if (code !== 0 || (o.until !== undefined && result === 0))
    throw new Error(`${cmd.join(" ")} failed (${code}): ${out.slice(0, 300)} ${(await err).slice(0, 2000)}`);
  const usage = p.resourceUsage()!;
  return {
    wall,
    result: result || wall,
    cpu: Number(usage.cpuTime.total) / 1000,
    rss: usage.maxRSS / 1e6,
    start: performance.timeOrigin + t0,
    out,
  };
}

export interface Case {
  name: string;
  cmd: readonly string[];
  opts: RunOpts;
  /** Run in this many rounds only (default: all). */
  runs?: number;
  /** Awaited after each run, unmeasured (e.g. until what the run left behind is done). */
  after?: () => Promise<void>;
}

/** Every case once per round, in turn (machine noise hits all alike); round 0 is a warm-up. */
export async function interleave(
  cases: readonly Case[],
  runs: number,
  opts: { shuffle?: boolean } = {},
): Promise<Map<string, Run[]>> {
  const samples = new Map<string, Run[]>(cases.map((c) => [c.name, []]));
  // shuffle: each round in its own order (seeded, the same every run), so that no case always
  // follows the same other (whose leftovers, such as a server still exiting, it would pay for).
  let seed = 0x9e3779b9;
  const next = () => (seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
  for (let i = 0; i <= runs; i++) {
    const order = [...cases];
    if (opts.shuffle)
      for (let j = order.length - 1; j > 0; j--) {
        const k = Math.floor(next() * (j + 1));
        [order[j], order[k]] = [order[k]!, order[j]!];
      }
    for (const c of order) {
      if (i > (c.runs ?? runs)) continue;
      const r = await timed(c.cmd, c.opts);
      if (i > 0) samples.get(c.name)!.push(r);
      await c.after?.();
    }
  }
  return samples;
}

/** The median of one field of a case's runs. */
export const med = (samples: Map<string, Run[]>, name: string, k: keyof Omit<Run, "out">) =>
  median(samples.get(name)!.map((r) => r[k]));

/**
 * Builds the floor, a bare hello-world compiled with toolgate's flags (scripts/build.ts, the JIT
 * policy too), in a child process (a bundler run would grow this one). It writes with
 * process.stdout.write, as the issue's floor did; `bare` writes with console.log instead, which
 * never makes the Node stream (about 7 ms of CPU less): the least a compiled Bun start costs here.
 */
export function buildHello(dir: string, bare = false): string {
  const name = bare ? "bare" : "hello";
  const src = join(dir, `${name}.ts`);
  const out = join(dir, name);
  writeFileSync(src, bare ? 'console.log("hello");\n' : 'process.stdout.write("hello\\n");\n');
  const script = `await Bun.build({ entrypoints: [${JSON.stringify(src)}], compile: { outfile: ${JSON.stringify(out)}, autoloadDotenv: false, autoloadBunfig: false, jitPolicy: 8 }, minify: true, bytecode: true, format: "esm", target: "bun" }).then((r) => process.exit(r.success ? 0 : 1));`;
  const built = Bun.spawnSync([process.execPath, "-e", script], { stdout: "ignore", stderr: "pipe" });
  if (built.exitCode !== 0) throw new Error(`could not build the hello-world floor: ${built.stderr.toString()}`);
  return out;
}

/** A row of the issue's table: the figure now (and BENCH_BASELINE's), and the target. */
export function row(what: string, now: string, target: string, before?: string): string {
  return `${what.padEnd(44)} ${now.padStart(26)}  target ${target}${before === undefined ? "" : `  (baseline: ${before})`}`;
}

export const ms = (x: number) => `${x.toFixed(1)} ms`;
export const plus = (x: number) => `${x >= 0 ? "+" : ""}${x.toFixed(1)} ms`;

/**
 * The median over rounds of a[i] / b[i] (cases run in the same round, one after the other): on a
 * noisy machine steadier than a ratio of medians, as a slow moment tends to hit both of a round.
 */
export function pairedRatio(
  samples: Map<string, Run[]>,
  a: string,
  b: string,
  k: "wall" | "result" | "cpu" = "result",
): number {
  const xs = samples.get(a)!,
    ys = samples.get(b)!;
  return median(xs.slice(0, ys.length).map((x, i) => x[k] / ys[i]![k]));
}

/**
 * Peak RSS in MB, median of `n` runs, read by GNU time (/usr/bin/time -f %M) rather than from
 * wait4 in this process: a child spawned from here counts this (much larger) process's pages until
 * it execs, so its own peak below this process's size does not show. NaN without /usr/bin/time.
 * The binary's pages are first dropped from the page cache (python3's posix_fadvise, when there):
 * a file just written (a fresh build, a copy) sits there in large folios, which a start maps whole,
 * so the same bytes read up to 5 MB more than they do once read back from disk as any start reads them.
 */
export function peakRss(cmd: readonly string[], o: RunOpts, n = 10): number {
  if (!existsSync("/usr/bin/time")) return NaN;
  if (cmd[0]!.startsWith("/")) evictFromCache(cmd[0]!);
  const out: number[] = [];
  const file = join(o.cwd, `.peak-rss-${process.pid}`);
  for (let i = 0; i < n; i++) {
    Bun.spawnSync(["/usr/bin/time", "-f", "%M", "-o", file, ...cmd], {
      cwd: o.cwd,
      env: o.env,
      stdout: "ignore",
      stderr: "ignore",
    });
    out.push(Number(readFileSync(file, "utf8").trim().split("\n").pop()) / 1024);
  }
  rmSync(file, { force: true });
  return median(out);
}

/** Drops a file's pages from the page cache (python3's posix_fadvise; nothing without python3): see peakRss. */
export function evictFromCache(path: string): void {
  const evict =
    "import os, sys\nfd = os.open(sys.argv[1], os.O_RDONLY)\nos.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)";
  Bun.spawnSync(["python3", "-c", evict, path], { stdout: "ignore", stderr: "ignore" });
}
