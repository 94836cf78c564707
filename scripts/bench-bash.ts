// bash benchmark (on demand): `toolgate call bash '{"command":"true"}'` (granted and approved
// by flags, sandbox off) against `bash -lc true`, interleaved in one run; medians.
// Target: at most 30 ms above `bash -lc true`. BENCH_SANDBOX=product (or bench) runs the
// call in that sandbox mode (a workspace toolgate.json), BENCH_BIN another binary (a comparison).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const bin = process.env.BENCH_BIN ?? join(import.meta.dir, "..", "dist", "toolgate");
const runs = Number(process.env.BENCH_RUNS ?? 40);
const work = mkdtempSync(join(tmpdir(), "toolgate-bench-bash-"));
if (process.env.BENCH_SANDBOX)
  writeFileSync(join(work, "toolgate.json"), JSON.stringify({ sandbox: process.env.BENCH_SANDBOX }));
const env = { PATH: "/usr/bin:/bin", HOME: work, CI: "true" };
const cases: [string, string[]][] = [
  ["bash -lc true", ["/bin/bash", "-lc", "true"]],
  ["toolgate call bash true", [bin, "call", "bash", '{"command":"true"}', "--allow-run=bash", "--approve", "bash"]],
];
const samples = new Map(cases.map(([n]) => [n, [] as number[]]));
try {
  for (let i = 0; i <= runs; i++) {
    for (const [name, cmd] of cases) {
      const t0 = performance.now();
      const p = Bun.spawn(cmd, { cwd: work, env, stdout: "pipe", stderr: "pipe" });
      await new Response(p.stdout).arrayBuffer();
      if ((await p.exited) !== 0) throw new Error(`${name} failed: ${await new Response(p.stderr).text()}`);
      if (i > 0) samples.get(name)!.push(performance.now() - t0);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const q = (xs: number[], f: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * f)]!;
const floor = median(samples.get(cases[0]![0])!);
for (const [name] of cases) {
  const s = samples.get(name)!;
  console.log(
    `${name.padEnd(28)} ${median(s).toFixed(1).padStart(6)} ms (${q(s, 0.1).toFixed(1)}..${q(s, 0.9).toFixed(1)})  +${(median(s) - floor).toFixed(1)} ms`,
  );
}
console.log(
  JSON.stringify({
    bash_ms: +floor.toFixed(1),
    toolgate_ms: +median(samples.get(cases[1]![0])!).toFixed(1),
    over_ms: +(median(samples.get(cases[1]![0])!) - floor).toFixed(1),
  }),
);
