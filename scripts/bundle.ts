// How dist/toolgate's code is bundled, shared by scripts/build.ts and scripts/release.ts (which
// compile it) and test/architecture.test.ts (which checks what a start loads). Split: src/main.ts is
// a small entry that dispatches, and every module it or a command imports dynamically (each
// command, the SDK, a tool's machinery) becomes a chunk of its own in the binary's embedded file
// system, read and evaluated only when first imported. The file_search worker is a second entry: in
// the binary it sits at tools/search/worker.ts, where search/pool.ts starts it (without it, one
// thread scans); likewise the exporter's thread of a long-lived process with telemetry on (telemetry/worker.ts).
import pkg from "../package.json" with { type: "json" };

/** The commit of the tree at `root`: 12 hex, `-dirty` with uncommitted changes; "unknown" outside git. */
export function commitOf(root: string): string {
  const head = Bun.spawnSync(["git", "-C", root, "rev-parse", "--short=12", "HEAD"], { stderr: "ignore" });
  if (head.exitCode !== 0) return "unknown";
  const dirty =
    Bun.spawnSync(["git", "-C", root, "status", "--porcelain", "--untracked-files=no"], { stderr: "ignore" })
      .stdout.toString()
      .trim() !== "";
  return `${head.stdout.toString().trim()}${dirty ? "-dirty" : ""}`;
}

/** The target name of the machine building (dist/toolgate is built for it). */
export const hostTarget = (): string =>
  `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;

/** What every compile of toolgate sets (scripts/build.ts, and scripts/release.ts for each platform). */
export const COMPILE = {
  // The binary reads no .env or bunfig.toml from where it runs.
  autoloadDotenv: false,
  autoloadBunfig: false,
  // Bun puts BUN_OPTIONS (from the environment) after these and parses both: "--" ends the options,
  // so what it holds (--preload, --cpu-prof, ...) is never parsed. With an exec argv Bun parses at
  // every start, and that parse reads BUN_INSPECT_PRELOAD: src/main.ts refuses it (docs/security.md).
  execArgv: ["--"],
  // JIT tier-up thresholds x8 at start: a cold command's run-once code stays in the interpreter
  // instead of being compiled on background threads (cold call: about 5 ms CPU and 2.5 MB less).
  // The long-running commands (src/main.ts) and the search worker set the normal policy back.
  jitPolicy: 8,
};

export function bundleOptions(
  root: string,
  build: { commit: string; target: string } = { commit: "unknown", target: hostTarget() },
): { entrypoints: string[]; splitting: boolean; format: "esm"; target: "bun"; define: Record<string, string> } {
  return {
    entrypoints: [`${root}/src/main.ts`, `${root}/src/tools/search/worker.ts`, `${root}/src/telemetry/worker.ts`],
    splitting: true,
    format: "esm",
    target: "bun",
    define: {
      TOOLGATE_VERSION: JSON.stringify(pkg.version),
      TOOLGATE_COMMIT: JSON.stringify(build.commit),
      TOOLGATE_TARGET: JSON.stringify(build.target),
      // Only scripts/build.ts's recording build lets BUN_BYTECODE_ORDER_OUT through (src/main.ts).
      TOOLGATE_RECORDS_ORDER: "false",
    },
  };
}
