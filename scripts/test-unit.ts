// `bun run test:unit`: the suite's fast tier, the tests that need no built binary, no namespaces,
// no sandbox and no outside program suites: pure units and in-process tests (a command, the
// pipeline, a real SQLite file, a loopback HTTP server). A file is in the tier unless it runs
// dist/toolgate (the helpers' BIN, run, runUnprivileged, onTty), builds one, or needs bubblewrap,
// unshare, setpriv, qemu, npm or the conformance suite, or says of itself, in a line of its own
// `// Full suite only: WHY.`, that it waits on real processes (an MCP server as a child, a process
// tree ended after its grace, a pseudo-terminal, a deadline). `bun run test` (npm test) is still
// the whole suite.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(import.meta.dir, "..");
const SLOW =
  /\bBIN\b|dist\/toolgate|\brun\(|runUnprivileged|onTty|unshare|bwrap|setpriv|probeSandbox|sandboxFor|qemu|\bnpm\b|Bun\.build\(|^\/\/ Full suite only: /m;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === "fixtures" || e.name === "conformance" ? [] : testFiles(p);
    return e.name.endsWith(".test.ts") ? [p] : [];
  });
}

export const unitFiles = (): string[] =>
  testFiles(join(root, "test"))
    .filter((f) => !SLOW.test(readFileSync(f, "utf8")))
    .map((f) => relative(root, f))
    .sort();

/**
 * A folder for the tier's temporary files on a memory file system (Linux's /dev/shm) unless TMPDIR
 * is set: the tests make thousands of small files and folders, and on a busy disk each costs about
 * a millisecond (the tier took three times as long). Tests run programs they write there, so not
 * where it is mounted noexec. Undefined otherwise: the default.
 */
function memoryTmp(): string | undefined {
  if (process.env.TMPDIR) return undefined;
  try {
    // The last mount there is the one in effect.
    const shm = readFileSync("/proc/mounts", "utf8")
      .split("\n")
      .filter((l) => l.split(" ")[1] === "/dev/shm")
      .at(-1);
    if (shm === undefined || shm.split(" ")[3]!.split(",").includes("noexec")) return undefined;
    return mkdtempSync(join("/dev/shm", "toolgate-test-unit-"));
  } catch {
    return undefined;
  }
}

if (import.meta.main) {
  const files = unitFiles();
  const started = performance.now();
  const tmp = memoryTmp();
  const env = tmp === undefined ? process.env : { ...process.env, TMPDIR: tmp };
  const p = Bun.spawn(["bun", "test", "--timeout", "30000", ...files.map((f) => `./${f}`), ...process.argv.slice(2)], {
    cwd: root,
    env,
    stdio: ["inherit", "inherit", "inherit"],
  });
  // Interrupted, the run ends first, then its folder goes.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => p.kill(signal));
  const code = await p.exited;
  if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
  console.error(`test:unit: ${files.length} files in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  process.exit(code);
}
