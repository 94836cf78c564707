// `bun run test:unit`: the suite's fast tier, the tests that need no built binary, no namespaces,
// no sandbox and no outside program suites: pure units and in-process tests (a command, the
// pipeline, a real SQLite file, a loopback HTTP server). A file is in the tier unless it runs
// dist/toolgate (the helpers' BIN, run, runUnprivileged, onTty), builds one, or needs bubblewrap,
// unshare, setpriv, qemu, npm or the conformance suite, or says of itself, in a line of its own
// `// Full suite only: WHY.`, that it waits on real processes (an MCP server as a child, a process
// tree ended after its grace, a pseudo-terminal, a deadline). `bun run test` (npm test) is still
// the whole suite.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(import.meta.dir, "..");
const SLOW = /\bBIN\b|dist\/toolgate|\brun\(|runUnprivileged|onTty|unshare|bwrap|setpriv|probeSandbox|sandboxFor|qemu|\bnpm\b|Bun\.build\(|^\/\/ Full suite only: /m;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === "fixtures" || e.name === "conformance" ? [] : testFiles(p);
    return e.name.endsWith(".test.ts") ? [p] : [];
  });
}

export const unitFiles = (): string[] => testFiles(join(root, "test")).filter((f) => !SLOW.test(readFileSync(f, "utf8"))).map((f) => relative(root, f)).sort();

if (import.meta.main) {
  const files = unitFiles();
  const started = performance.now();
  const p = Bun.spawn(["bun", "test", "--timeout", "30000", ...files.map((f) => `./${f}`), ...process.argv.slice(2)], { cwd: root, stdio: ["inherit", "inherit", "inherit"] });
  const code = await p.exited;
  console.error(`test:unit: ${files.length} files in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  process.exit(code);
}
