// Builds dist/toolgate: one file made by `bun build --compile`. Schemas are exported from
// arktype first (src/generated/schemas.ts); the binary reads no .env or bunfig.toml and parses no
// BUN_OPTIONS. A first build runs its hot paths once, and dist/toolgate is built laid out by those runs (below).
// The code is split into a small entry and chunks loaded on first use (scripts/bundle.ts): one
// bundle made every start read the whole 1.2 MB (--version about 3.5 ms, a cold call 3 MB more).
import { $ } from "bun";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { bundleOptions, COMPILE, commitOf, hostTarget } from "./bundle.ts";

const root = new URL("..", import.meta.url).pathname;
const outfile = `${root}dist/toolgate`;
await $`bun ${root}scripts/gen-schemas.ts`;
const built = { commit: commitOf(root), target: hostTarget() };

/**
 * `recording`: the build whose runs record the layout, which alone lets BUN_BYTECODE_ORDER_OUT through
 * (src/main.ts starts again without Bun's runtime switches); it is run in a scratch folder and removed.
 */
async function compile(out: string, order: readonly string[], recording: boolean): Promise<void> {
  const options = bundleOptions(root.replace(/\/$/, ""), built);
  const result = await Bun.build({
    ...options,
    define: { ...options.define, TOOLGATE_RECORDS_ORDER: String(recording) },
    compile: { ...COMPILE, outfile: out, bytecodeOrder: order.length > 0 ? [...order] : false },
    minify: true,
    bytecode: true,
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    process.exit(1);
  }
}

/**
 * Profile-guided bytecode layout (Bun's --bytecode-order): a cold `call file_read` and `tools --json`
 * record which functions they load, and the second build puts those first, so a start reads and
 * keeps fewer pages of the binary (peak RSS of a cold call about 3.5 MB lower). Recorded fresh each
 * build, in a scratch workspace with a scrubbed environment; a run that writes no profile is left out.
 */
function recordOrder(work: string, recorder: string): string[] {
  writeFileSync(join(work, "README.md"), "# profile\n\nsome text\n");
  const runs: [string, string[]][] = [
    ["call.order", ["call", "file_read", '{"path":"README.md"}', "--allow-read", "--approve", "file_read"]],
    ["tools.order", ["tools", "--json"]],
  ];
  const files: string[] = [];
  for (const [name, argv] of runs) {
    const file = join(work, name);
    const env = {
      PATH: "/usr/bin:/bin",
      HOME: work,
      XDG_STATE_HOME: join(work, "state"),
      CI: "true",
      TOOLGATE_SESSION: "off",
      BUN_BYTECODE_ORDER_OUT: file,
    };
    Bun.spawnSync([recorder, ...argv], { cwd: work, env, stdout: "ignore", stderr: "ignore" });
    if (existsSync(file)) files.push(file);
  }
  return files;
}

const work = mkdtempSync(join(tmpdir(), "toolgate-order-"));
try {
  const recorder = join(work, "toolgate-recorder");
  await compile(recorder, [], true);
  const order = recordOrder(work, recorder);
  await compile(outfile, order, false);
  console.error(
    `built dist/toolgate ${pkg.version} ${built.commit} ${built.target} (bytecode laid out by ${order.length} recorded runs)`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
