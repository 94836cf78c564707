// Validator bench (on demand, not in `bun test`): the built-in tools' real input schemas and
// arguments a caller sends (valid, and invalid: a near key, a wrong type, a bound, a pattern),
// checked by four engines in one run: the hand-written one (src/schema/validate.ts), ajv compiling
// at run time (as src/schema/full.ts does), ajv's standalone code generated at build time
// (src/generated/validators.js, by scripts/gen-schemas.ts), and arktype (the declarations the tools are written in). Cold: a process compiled with dist/toolgate's
// build flags, started afresh per sample; from before the engine's module is loaded to the first
// verdict (module load, compile, one check), medians of BENCH_RUNS (default 21) interleaved
// processes. Warm: one process, every case checked in turn, the median of 80 rounds per engine.
// Every engine must agree on every case's verdict. Then the same for the config file's schema
// (src/generated/config-check.js is its standalone code).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadavg, median, quantile } from "./bench-lib.ts";

const root = join(import.meta.dir, "..");
const runs = Number(process.env.BENCH_RUNS ?? 21);
const ENGINES = ["hand-written", "ajv", "ajv standalone", "arktype"] as const;

const SHA = `sha256:${"0123456789abcdef".repeat(4)}`;
/** [tool, arguments, valid]: what callers send, and the mistakes they make. */
export const CASES: [string, Record<string, unknown>, boolean][] = [
  ["file_read", { path: "README.md" }, true],
  ["file_read", { path: "src/main.ts", offset: 120, limit: 200 }, true],
  ["file_read", { pth: "README.md" }, false],
  ["file_read", { path: "README.md", limit: 0 }, false],
  ["file_edit", { path: "src/a.ts", digest: SHA, old_string: "const a = 1;", new_string: "const a = 2;" }, true],
  ["file_edit", { path: "src/a.ts", digest: "md5:abc", old_string: "", new_string: "x" }, false],
  ["file_write", { path: "notes/todo.md", content: "# todo\n\n- one\n- two\n".repeat(20), overwrite: true }, true],
  ["file_search", { pattern: "TODO|FIXME", glob: "*.ts", ignoreCase: true, limit: 50 }, true],
  ["file_search", { pattern: 7, literal: "yes" }, false],
  ["file_find", { pattern: "**/*.test.ts", limit: 100 }, true],
  ["bash", { command: "git status --short && bun test test/schema", timeout_secs: 120 }, true],
  ["bash", { command: "ls", timeout_secs: -1 }, false],
  ["web_extract", { url: "https://example.org/docs/page?x=1", max_chars: 8000 }, true],
  [
    "plan",
    {
      steps: Array.from({ length: 12 }, (_, i) => ({
        status: i < 4 ? "done" : "pending",
        title: `step ${i}: do the thing`,
      })),
    },
    true,
  ],
  ["plan", { steps: [{ status: "doing", title: "two\nlines" }] }, false],
];

/** Real config files (the repository's own, and what docs/config.md and docs/mcp.md show), and two mistakes. */
export const CONFIGS: [Record<string, unknown>, boolean][] = [
  [{ gates: { pattern: "scripts/check-*.sh" } }, true],
  [
    {
      permissions: { allow: { read: ["."] }, deny: { read: ["secrets"] } },
      approval: { plan: "required" },
      state: ".toolgate",
      profiles: {
        reader: { include: ["file_*", "skill_*"], exclude: ["file_write", "*_edit"] },
        "no-shell": { exclude: ["bash", "dev_*"] },
      },
    },
    true,
  ],
  [
    {
      mcpServers: {
        everything: { command: "node", args: ["server-everything/dist/index.js", "stdio"] },
        gh: { command: "gh-mcp", env: { GH_TOKEN: "${GH_TOKEN}" }, exclude: ["delete_*"] },
        web: { type: "http", url: "http://127.0.0.1:8080/mcp" },
      },
    },
    true,
  ],
  [{ permisions: { allow: { read: ["."] } } }, false],
  [{ approval: { plan: "sometimes" } }, false],
];

/** The entry each cold sample runs: `entry ENGINE` loads ENGINE, checks CASES[0] once, prints the ms. */
const STANDALONE = join(root, "src/generated/validators.js");
const CONFIG_STANDALONE = join(root, "src/generated/config-check.js");
const entrySource = () => `
import { builtinTools } from ${JSON.stringify(join(root, "src/tools/index.ts"))};
import { toolSchemas } from ${JSON.stringify(join(root, "src/generated/schemas.ts"))};
const tool = "file_read", args = { path: "src/main.ts", offset: 120, limit: 200 };
const engine = process.argv[2];
const t0 = performance.now();
let ok;
if (process.argv[3] === "config") {
  const { configSchema } = await import(${JSON.stringify(join(root, "src/generated/schemas.ts"))});
  const cfg = ${JSON.stringify(CONFIGS[1]![0])};
  if (engine === "hand-written") ok = (await import(${JSON.stringify(join(root, "src/schema/validate.ts"))})).compileSchema(configSchema)(cfg).ok;
  else if (engine === "ajv") ok = (await import(${JSON.stringify(join(root, "src/schema/full.ts"))})).compileFull(configSchema)(cfg).ok;
  else if (engine === "ajv standalone") ok = (await import(${JSON.stringify(CONFIG_STANDALONE)})).validate(cfg);
  else {
    const { type } = await import(${JSON.stringify(Bun.resolveSync("arktype", root))});
    const { configType } = await import(${JSON.stringify(join(root, "src/config/schema.ts"))});
    ok = !(configType(type)(cfg) instanceof type.errors);
  }
} else if (engine === "hand-written") {
  const { compileSchema } = await import(${JSON.stringify(join(root, "src/schema/validate.ts"))});
  ok = compileSchema(toolSchemas[tool])(args).ok;
} else if (engine === "ajv") {
  const { compileFull } = await import(${JSON.stringify(join(root, "src/schema/full.ts"))});
  ok = compileFull(toolSchemas[tool])(args).ok;
} else if (engine === "ajv standalone") {
  const { checks } = await import(${JSON.stringify(STANDALONE)});
  ok = checks[tool](args);
} else {
  const { type } = await import(${JSON.stringify(Bun.resolveSync("arktype", root))});
  const T = builtinTools.find((t) => t.name === tool).input(type);
  ok = !(T(args) instanceof type.errors);
}
const t1 = performance.now();
process.stdout.write(JSON.stringify({ ms: t1 - t0, ok }) + "\\n");
`;

type Check = (tool: string, args: unknown) => boolean;

async function warmEngines(): Promise<Record<(typeof ENGINES)[number], Check>> {
  const { toolSchemas, configSchema } = await import("../src/generated/schemas.ts");
  const { compileSchema } = await import("../src/schema/validate.ts");
  const { compileFull } = await import("../src/schema/full.ts");
  const { builtinTools } = await import("../src/tools/index.ts");
  const { railTools } = await import("../src/tools/rails/index.ts");
  const { type } = await import("arktype");
  const { configType } = await import("../src/config/schema.ts");
  const { checks } = await import("../src/generated/validators.js");
  const { validate: config } = await import("../src/generated/config-check.js");
  const configHand = compileSchema(configSchema);
  const configAjv = compileFull(configSchema);
  const configArk = configType(type);
  const memo = <V>(make: (tool: string) => V) => {
    const made = new Map<string, V>();
    return (tool: string) => made.get(tool) ?? (made.set(tool, make(tool)), made.get(tool)!);
  };
  const hand = memo((t) => compileSchema(toolSchemas[t]!));
  const ajv = memo((t) => compileFull(toolSchemas[t]!));
  const ark = memo((t) => [...builtinTools, ...railTools].find((x) => x.name === t)!.input(type));
  // The tool "config" stands for the config file's schema.
  return {
    "hand-written": (t, a) => (t === "config" ? configHand : hand(t))(a).ok,
    ajv: (t, a) => (t === "config" ? configAjv : ajv(t))(a).ok,
    "ajv standalone": (t, a) => (t === "config" ? config : checks[t]!)(a),
    arktype: (t, a) => !((t === "config" ? configArk : ark(t))(a) instanceof type.errors),
  };
}

if (import.meta.main) {
  const work = mkdtempSync(join(tmpdir(), "toolgate-bench-validate-"));
  try {
    const { toolSchemas } = await import("../src/generated/schemas.ts");
    const code = await Bun.file(STANDALONE).text();
    const configCode = await Bun.file(CONFIG_STANDALONE).text();
    writeFileSync(join(work, "entry.ts"), entrySource());
    const bin = join(work, "entry");
    const built = await Bun.build({
      entrypoints: [join(work, "entry.ts")],
      compile: { outfile: bin, autoloadDotenv: false, autoloadBunfig: false },
      minify: true,
      bytecode: true,
      format: "esm",
      target: "bun",
    });
    if (!built.success) throw new Error(built.logs.join("\n"));

    const engines = await warmEngines();
    for (const [tool, args, valid] of [...CASES, ...CONFIGS.map(([c, v]) => ["config", c, v] as const)]) {
      for (const e of ENGINES)
        if (engines[e](tool, args) !== valid)
          throw new Error(`${e} says ${!valid} for ${tool} ${JSON.stringify(args)}`);
    }
    const fmt = (xs: number[], unit = "µs", k = 1000) =>
      `${(median(xs) * k).toFixed(2)} ${unit} (p10..p90 ${(quantile(xs, 0.1) * k).toFixed(2)}..${(quantile(xs, 0.9) * k).toFixed(2)})`;
    console.log(
      `load ${loadavg()}; ajv standalone module (src/generated/validators.js) for all ${Object.keys(toolSchemas).length} built-ins: ${code.length} bytes; the config's: ${configCode.length} bytes`,
    );
    const suites: [string, [string, unknown, boolean][], string, string][] = [
      ["the built-ins' schemas", CASES, "tool", "file_read"],
      [
        "the config file's schema",
        CONFIGS.map(([c, v]) => ["config", c, v]),
        "config",
        "a config with permissions, approval and profiles",
      ],
    ];
    for (const [what, cases, arg, coldCase] of suites) {
      console.log(`\n${what} (${cases.length} cases, ${cases.filter((c) => c[2]).length} valid):`);
      // Warm: each sample checks every valid (or invalid) case REPS times; the per-check mean.
      const REPS = 200;
      const warm: Record<string, { valid: number[]; invalid: number[] }> = {};
      for (const e of ENGINES) warm[e] = { valid: [], invalid: [] };
      for (let round = 0; round < 80; round++) {
        for (const e of ENGINES) {
          for (const kind of ["valid", "invalid"] as const) {
            const some = cases.filter((c) => c[2] === (kind === "valid"));
            const t0 = performance.now();
            for (let i = 0; i < REPS; i++) for (const [tool, args] of some) engines[e](tool, args);
            warm[e]![kind].push((performance.now() - t0) / (REPS * some.length));
          }
        }
      }
      const cold: Record<string, number[]> = Object.fromEntries(ENGINES.map((e) => [e, []]));
      for (let i = 0; i < runs; i++) {
        for (const e of ENGINES) {
          const p = Bun.spawnSync([bin, e, arg], { stdout: "pipe", stderr: "inherit" });
          const r = JSON.parse(p.stdout.toString()) as { ms: number; ok: boolean };
          if (!r.ok) throw new Error(`${e} refused the cold case`);
          cold[e]!.push(r.ms);
        }
      }
      for (const e of ENGINES) {
        console.log(
          `  ${e.padEnd(15)} warm: valid ${fmt(warm[e]!.valid)}, invalid ${fmt(warm[e]!.invalid)} | cold, ${coldCase} (load + compile + check): ${fmt(cold[e]!, "ms", 1)}`,
        );
      }
      const ratio = (x: number[], y: number[]) => `${(median(x) / median(y)).toFixed(1)}x`;
      for (const e of ENGINES.slice(1)) {
        console.log(
          `  ${e} / hand-written: warm valid ${ratio(warm[e]!.valid, warm["hand-written"]!.valid)}, invalid ${ratio(warm[e]!.invalid, warm["hand-written"]!.invalid)}, cold ${ratio(cold[e]!, cold["hand-written"]!)}`,
        );
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
