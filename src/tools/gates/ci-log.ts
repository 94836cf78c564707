// What dev_check tells a CI log, on the operator view (stderr; stdout stays the one result).
// Under GitHub Actions each gate is a collapsible group holding its output as it comes, with the
// gate's output unable to issue workflow commands of its own (stop-commands with a token it cannot
// know), then a ✓/✗ line with its time; the run ends with a Markdown table in the step summary, and
// a failed gate's annotation points at the first file:line its output names in the repository.
// Elsewhere under CI, one plain line per gate. The runner reads workflow commands from a step's
// stdout and stderr alike (its ScriptHandler hands both streams to the same command manager).
import { realpathSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { GateOutcome } from "./report.ts";

export type CiKind = "github" | "plain";

const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The line after a gate: `dev_check: ✓ types passed in 3.2 s`, `dev_check: ✗ unit failed (exit code 1) in 0.4 s`. */
export const verdictLine = (o: GateOutcome) =>
  `dev_check: ${o.passed ? "✓" : "✗"} ${o.name} ${o.passed ? "passed" : `failed (${o.how})`} in ${secs(o.durationMs)}`;

/**
 * One gate's group on a GitHub Actions log: `open` before it runs, `output` for what it prints as
 * it comes (whole lines; a partial one is held until its end or the gate's), `close` after.
 */
export function githubGroup(name: string, index: number, total: number, line: (s: string) => void) {
  const token = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
  const held = { stdout: "", stderr: "" };
  return {
    open() {
      line(`::group::dev_check: ${name} (${index} of ${total})`);
      line(`::stop-commands::${token}`);
    },
    output(stream: "stdout" | "stderr", text: string) {
      const lines = (held[stream] + text).split(/\r?\n/);
      held[stream] = lines.pop()!;
      for (const l of lines) line(l);
    },
    close() {
      for (const s of ["stdout", "stderr"] as const) if (held[s] !== "") line(held[s]);
      line(`::${token}::`);
      line("::endgroup::");
    },
  };
}

/** Lines of a failed gate's output the summary shows. */
const SUMMARY_LINES = 20;

/** The step summary: a table of the gates, then the end of each failed gate's output. */
export function stepSummary(gates: readonly GateOutcome[]): string {
  const failed = gates.filter((g) => !g.passed);
  const head =
    failed.length === 0
      ? `${gates.length} of ${gates.length} gates passed`
      : `${failed.length} of ${gates.length} gates failed`;
  const rows = gates.map(
    (g) =>
      `| \`${g.name}\` | ${g.passed ? "✅ passed" : `❌ failed (${g.how.replaceAll("|", "\\|")})`} | ` +
      `${secs(g.durationMs)} |`,
  );
  const tails = failed.map((g) => {
    const tail = (g.stderr.trim() || g.stdout.trim()).split("\n").slice(-SUMMARY_LINES).join("\n");
    // A fence longer than any run of backticks in the output: nothing in it can end the block.
    const fence = "`".repeat(Math.max(3, ...[...tail.matchAll(/`+/g)].map((m) => m[0].length + 1)));
    return (
      `\n<details><summary><code>${g.name}</code>: the end of its ` +
      `output</summary>\n\n${fence}text\n${tail}\n${fence}\n\n</details>`
    );
  });
  return [`### dev_check: ${head}`, "", "| gate | status | time |", "|---|---|---|", ...rows, ...tails, ""].join("\n");
}

/** A place an output names: `src/a.ts:12`, `./lib/b.py:3:7`, `/abs/path/c.go:10:2`. */
const PLACE = /(?<![\w./-])((?:\.{1,2}\/|\/)?(?:[\w.-]+\/)*[\w.-]+\.[A-Za-z0-9]+):(\d+)(?::(\d+))?/g;

export interface Place {
  /** Relative to the repository's top folder. */
  readonly file: string;
  readonly line: number;
  readonly col?: number;
}

/**
 * The first place a failed gate's output names that is a file of the repository: a path as the
 * gate saw it in its copy (relative to its working folder, or absolute inside the copy or the
 * checkout), mapped back to the repository, and a file there whose real path is in it too.
 */
export function firstPlace(
  output: string,
  where: { readonly cwd: string; readonly copyRoot: string; readonly top: string },
): Place | null {
  for (const m of output.matchAll(PLACE)) {
    const [, path, line, col] = m;
    const abs = isAbsolute(path!) ? path! : resolve(where.cwd, path!);
    const base = [where.copyRoot, where.top].find((b) => abs === b || abs.startsWith(`${b}/`));
    if (base === undefined) continue;
    const rel = relative(base, abs);
    if (rel === "" || rel.startsWith("..") || rel.split("/").includes(".git")) continue;
    if (!isRepoFile(join(where.top, rel), where.top)) continue;
    return { file: rel, line: Number(line), ...(col ? { col: Number(col) } : {}) };
  }
  return null;
}

function isRepoFile(p: string, top: string): boolean {
  try {
    const real = realpathSync(p);
    return (real === top || real.startsWith(`${top}/`)) && Bun.file(real).size >= 0 && !real.endsWith("/");
  } catch {
    return false;
  }
}
