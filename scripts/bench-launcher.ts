// Bench for the launcher: launching /bin/true through it against a bare
// Bun.spawn of /bin/true, interleaved round by round in one process, medians compared.
// Target: at most 1.3x. A second floor drains both pipes like the launcher does; an echo pair
// shows the cost of an artifact file when there is output. ROUNDS=n to change. Last line is JSON.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StreamRedactor } from "../src/boundary/redact.ts";
import { childEnv } from "../src/launcher/env.ts";
import { createLauncher } from "../src/launcher/launch.ts";

const WARMUP = 30;
const ROUNDS = Number(process.env.ROUNDS ?? 300);
const TARGET = 1.3;

const dir = mkdtempSync(join(tmpdir(), "toolgate-bench-"));
const built = childEnv({ parent: {} });
if (!built.ok) throw new Error(built.refusal.message);
const env = built.value;
const launcher = createLauncher({ redactor: (s) => new StreamRedactor(s) });

const cases: Record<string, () => Promise<unknown>> = {
  bare: async () => {
    const p = Bun.spawn(["/bin/true"]);
    await p.exited;
  },
  barePipes: async () => {
    const p = Bun.spawn(["/bin/true"], { env: { ...env.vars }, stdout: "pipe", stderr: "pipe" });
    await Promise.all([p.exited, new Response(p.stdout).arrayBuffer(), new Response(p.stderr).arrayBuffer()]);
  },
  launcher: async () => {
    const r = await launcher.launch({
      argv: ["/bin/true"],
      env,
      cwd: dir,
      deadlineMs: 10_000,
      artifactsDir: join(dir, "artifacts"),
    });
    if (!r.ok || r.value.ended !== "exited") throw new Error(`launch failed: ${JSON.stringify(r)}`);
  },
  // With output, the launcher also creates and writes an artifact file: shown, not the target.
  barePipesEcho: async () => {
    const p = Bun.spawn(["/bin/echo", "hello"], { env: { ...env.vars }, stdout: "pipe", stderr: "pipe" });
    await Promise.all([p.exited, new Response(p.stdout).arrayBuffer(), new Response(p.stderr).arrayBuffer()]);
  },
  launcherEcho: async () => {
    const r = await launcher.launch({
      argv: ["/bin/echo", "hello"],
      env,
      cwd: dir,
      deadlineMs: 10_000,
      artifactsDir: join(dir, "artifacts"),
    });
    if (!r.ok || r.value.stdout.tail !== "hello\n") throw new Error(`launch failed: ${JSON.stringify(r)}`);
  },
};

const samples: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
try {
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    for (const [name, run] of Object.entries(cases)) {
      const start = performance.now();
      await run();
      if (round >= WARMUP) samples[name]!.push(performance.now() - start);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const ms = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, Number(median(v).toFixed(3))]));
const ratio = Number((ms.launcher! / ms.bare!).toFixed(3));
const ratioPipes = Number((ms.launcher! / ms.barePipes!).toFixed(3));
const ratioEcho = Number((ms.launcherEcho! / ms.barePipesEcho!).toFixed(3));
console.log(`bare Bun.spawn(/bin/true)      median ${ms.bare} ms`);
console.log(`bare, both pipes drained       median ${ms.barePipes} ms`);
console.log(`launcher.launch(/bin/true)     median ${ms.launcher} ms`);
console.log(`ratio ${ratio}x (target ≤ ${TARGET}x), ${ratioPipes}x against the drained floor; ${ROUNDS} rounds`);
console.log(
  `with output (/bin/echo, artifact written): bare ${ms.barePipesEcho} ms, launcher ${ms.launcherEcho} ms, ${ratioEcho}x`,
);
console.log(
  JSON.stringify({ rounds: ROUNDS, medianMs: ms, ratio, ratioPipes, ratioEcho, target: TARGET, pass: ratio <= TARGET }),
);
