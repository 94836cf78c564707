// Shared test seams: temporary folders disposed with `await using`, and the compiled binary. More in
// test/support/: wait.ts (bounded polling), http-mcp-server.ts (SDK servers over HTTP), pipeline.ts
// (the call pipeline in process).
import type { CallScope, ToolContext } from "../src/catalog/declare.ts";
import type { Terms } from "../src/catalog/terms.ts";
import { createHash } from "node:crypto";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = realpathSync(join(import.meta.dir, ".."));
/** The compiled binary at its real path (dist/ may be reached through a link): what the kernel reports as a process's executable. */
export const BIN = ((p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p; // not built yet: the tests that need it say so
  }
})(join(ROOT, "dist", "toolgate"));

export interface TempDir extends AsyncDisposable {
  readonly path: string;
}

export function tempDir(prefix = "toolgate-test-"): TempDir {
  const path = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { path, [Symbol.asyncDispose]: async () => rmSync(path, { recursive: true, force: true }) };
}

export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs dist/toolgate with a minimal environment (never the test runner's own). CI=true: no prompts. */
export async function run(
  args: readonly string[],
  opts: { cwd: string; env?: Record<string, string>; stdin?: string },
): Promise<RunResult> {
  const proc = Bun.spawn([BIN, ...args], {
    cwd: opts.cwd,
    env: { PATH: "/usr/bin:/bin", HOME: opts.cwd, CI: "true", ...opts.env },
    stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

export const json = (r: RunResult): any => JSON.parse(r.stdout);

/** `toolgate ARGS` with stdout on a terminal `cols` wide; what it printed, lines without \r. */
export async function onTerminal(
  args: readonly string[],
  cols: number,
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ code: number; lines: string[] }> {
  const quoted = [BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const proc = Bun.spawn(["script", "-qec", `stty cols ${cols} rows 50; ${quoted}`, "/dev/null"], {
    cwd,
    env: { PATH: "/usr/bin:/bin", HOME: cwd, CI: "true", TERM: "dumb", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return {
    code,
    lines: out
      .replaceAll("\r", "")
      .split("\n")
      .filter((l) => l !== ""),
  };
}

/**
 * Runs dist/toolgate as an ordinary user: as root it drops to nobody with util-linux setpriv,
 * so refusals root would bypass (EACCES) are real in CI too. The binary is copied into a
 * world-readable temporary folder first (the checkout itself may sit where nobody cannot go);
 * `cwd` and the folders under it that the call must reach need o+x.
 */
export async function runUnprivileged(args: readonly string[], opts: { cwd: string }): Promise<RunResult> {
  await using bin = tempDir("toolgate-bin-");
  chmodSync(bin.path, 0o755);
  const copy = join(bin.path, "toolgate");
  copyFileSync(BIN, copy);
  chmodSync(copy, 0o755);
  const drop = process.getuid?.() === 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : [];
  const proc = Bun.spawn([...drop, copy, ...args], {
    cwd: opts.cwd,
    env: { PATH: "/usr/bin:/bin", HOME: opts.cwd, CI: "true" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/** Gives `p` and everything below it to nobody (65534), links left alone: a tree an unprivileged run may write. */
export function chownToNobody(p: string): void {
  chownSync(p, 65534, 65534);
  for (const e of readdirSync(p, { withFileTypes: true })) {
    if (e.isDirectory()) chownToNobody(join(p, e.name));
    else if (!e.isSymbolicLink()) chownSync(join(p, e.name), 65534, 65534);
  }
}

/** For tool contexts in tests whose tool starts no process: any use is a test bug. */
export const noProcesses = {
  sandboxMode: "off" as const,
  run: (): never => {
    throw new Error("this test's tool starts no process");
  },
};

/**
 * What a tool made by hand in a test needs from the pipeline, as a server's would be (the complete
 * validator, the local-path rule, acting outside), but settled on the test's own grants and timed
 * by the default deadline; `over` changes what a test is about.
 */
export const remoteTerms = (over: Partial<Terms> = {}): Terms => ({
  validation: { kind: "external", defaults: false },
  settle: { by: "grants" },
  boundary: { localPaths: { rule: "on" }, apps: false },
  secrets: [],
  audit: null,
  time: { kind: "default" },
  acts: "outside",
  ...over,
});

/** A call scope over `workspace` as `toolgate call` builds one (state in .toolgate, no records kept). */
export function callScope(workspace: string, over: Partial<CallScope> = {}): CallScope {
  const stateDir = join(workspace, ".toolgate");
  return {
    workspace,
    stateDir,
    scratch: join(stateDir, "scratch"),
    lane: "default",
    skillDirs: [],
    store: () => {
      throw new Error("this test's tool keeps no records");
    },
    ...over,
  };
}

/** A handler's context over `workspace`: callScope plus no processes, a fresh signal and a zero clock. */
export function toolContext(workspace: string, over: Partial<ToolContext> = {}): ToolContext {
  return {
    ...callScope(workspace),
    processes: noProcesses,
    signal: new AbortController().signal,
    now: () => 0,
    ...over,
  };
}

/** The environment that trusts exactly this config's content (as CI does with `toolgate trust --print`). */
export function trustEnv(configPath: string): { TOOLGATE_TRUST: string } {
  return { TOOLGATE_TRUST: createHash("sha256").update(readFileSync(configPath)).digest("hex") };
}

/** Runs dist/toolgate on a real pseudo-terminal (util-linux `script`), answers fed to its input. */
export async function onTty(cwd: string, args: readonly string[], answers: string, env: Record<string, string> = {}) {
  const cmd = [BIN, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(" ");
  // A wide terminal: tables fit the terminal's width (src/cli/ui.ts), and these tests read whole cells.
  const proc = Bun.spawn(["script", "-qec", `stty cols 500 2>/dev/null; ${cmd}`, "/dev/null"], {
    cwd,
    env: { PATH: "/usr/bin:/bin", HOME: cwd, TERM: "dumb", ...env },
    stdin: new Blob([answers]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { out: out.replaceAll("\r", ""), code };
}
