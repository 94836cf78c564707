// Schema benchmark (on demand, not in `bun test`): what the complete validator (ajv, src/schema/
// full.ts) adds to the first call of a tool whose schema uses `$ref` (target: under 15 ms).
// scripts/bench-schema-entry.ts is compiled with dist/toolgate's build flags and run cold N times,
// alone and after the MCP SDK's client module (as in an MCP call); medians in one run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const runs = Number(process.env.BENCH_RUNS ?? 15);
const work = mkdtempSync(join(tmpdir(), "toolgate-bench-schema-"));
const bin = join(work, "entry");
const built = await Bun.build({
  entrypoints: [join(root, "scripts", "bench-schema-entry.ts")],
  compile: { outfile: bin, autoloadDotenv: false, autoloadBunfig: false },
  minify: true,
  bytecode: true,
  format: "esm",
  target: "bun",
});
if (!built.success) throw new Error(built.logs.join("\n"));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
type Sample = { first: number; compile: number; validate: number; nextTool: number; ok: boolean };
for (const mode of ["alone", "sdk"]) {
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    const p = Bun.spawnSync([bin, mode], { stdout: "pipe", stderr: "inherit" });
    samples.push(JSON.parse(p.stdout.toString()));
  }
  if (!samples.every((s) => s.ok)) throw new Error("a valid argument was refused");
  const m = (k: keyof Omit<Sample, "ok">) => median(samples.map((s) => s[k])).toFixed(2);
  console.log(
    `${mode === "sdk" ? "after the SDK client module" : "alone"}: first $ref call ${m("first")} ms (compile ${m("compile")}, validate ${m("validate")}); a second tool's schema ${m("nextTool")} ms  [median of ${runs}]`,
  );
}
rmSync(work, { recursive: true, force: true });
