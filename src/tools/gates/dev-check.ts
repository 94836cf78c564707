// dev_check: the gate runner. Gates are the scripts matching gates.pattern (the `*` is the name);
// each runs as `bash SCRIPT` under the sandbox mode in its own disposable copy of the working tree
// (copy.ts), removed afterwards, under gates.timeout_secs. Any failed gate fails the call.
import { realpathSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { defineTool, type ToolContext } from "../../catalog/declare.ts";
import type { Need } from "../../permission/types.ts";
import { ok, refuse, type Outcome } from "../../result/result.ts";
import { didYouMean, nearest } from "../../result/suggest.ts";
import { makeCopy } from "./copy.ts";
import { annotation, findGates, junitXml, type Gate, type GateOutcome } from "./report.ts";
import { firstPlace, githubGroup, stepSummary, verdictLine } from "./ci-log.ts";
import { missingFolders, writeFile } from "../files/file-write.ts";
import { endedText, streamView, type StreamView } from "../shell/run-report.ts";
import { resolveInside } from "../files/workspace.ts";
import description from "./dev-check.txt" with { type: "text" };

/** The config's defaults (config/resolve.ts), for contexts built without a config. */
const DEFAULTS = { directory: ".", pattern: "script/check-*.sh", timeout_secs: 600, annotations: false };
/** Serialized bytes all gate tails share: the result stays well inside the boundary's 64 KiB. */
const TAILS_BYTES = 40_000;

interface GateResult {
  readonly name: string;
  readonly script: string;
  readonly status: "passed" | "failed";
  readonly exitCode: number | null;
  readonly ended: string;
  readonly durationMs: number;
  readonly stdout?: StreamView;
  readonly stderr?: StreamView;
  /** Why the gate could not run at all (the launcher refused). */
  readonly error?: string;
}

export default defineTool({
  name: "dev_check",
  description: description.trimEnd(),
  input: (type) =>
    type({
      "+": "reject",
      gate: "string > 0",
      "junit?": "string > 0",
    }),
  effect: "irreversible",
  approval: "required",
  ownDeadline: true,
  needs: (args, ctx) => {
    const needs: Need[] = [
      { kind: "run", value: "bash" },
      { kind: "run", value: "git" },
    ];
    if (args.junit === undefined) return ok(needs);
    const r = resolveInside(ctx.workspace, args.junit);
    if (!r.ok) return r;
    return ok([
      ...needs,
      ...missingFolders(r.value.abs).map((value): Need => ({ kind: "write", value })),
      { kind: "write", value: r.value.abs },
    ]);
  },
  handler: async (args, ctx) => runGates(args, ctx),
});

async function runGates(args: { gate: string; junit?: string }, ctx: ToolContext): Promise<Outcome<unknown>> {
  const checked = args.junit === undefined ? null : resolveInside(ctx.workspace, args.junit);
  const junitChecked = checked?.ok ? checked.value.abs : undefined;
  const conf = { ...DEFAULTS, ...ctx.config?.gates };
  let dir: string;
  try {
    dir = realpathSync(resolve(ctx.workspace, conf.directory));
  } catch {
    return refuse(
      "dev_check.no_gates",
      `the gates directory "${conf.directory}" does not exist (config key gates.directory)`,
    );
  }
  const found = findGates(dir, conf.pattern);
  if (!found.ok) return found;
  const names = found.value.map((g) => g.name);
  if (names.length === 0)
    return refuse(
      "dev_check.no_gates",
      `no gate scripts match gates.pattern "${conf.pattern}" under "${conf.directory}"; add one (e.g. ` +
        `script/check-types.sh) or set gates.pattern`,
    );
  const selected = args.gate === "all" ? found.value : found.value.filter((g) => g.name === args.gate);
  if (selected.length === 0) {
    const near = nearest(args.gate, [...names, "all"]);
    return refuse(
      "dev_check.unknown_gate",
      `no gate named "${args.gate}"; the gates are: ${names.join(", ")} (or "all")${didYouMean(near)}`,
      { gates: names, ...(near === undefined ? {} : { did_you_mean: near }) },
    );
  }
  const deadlineMs = Math.round(conf.timeout_secs * 1000);
  const tailBytes = Math.max(200, Math.min(12_000, Math.floor(TAILS_BYTES / (2 * selected.length))));
  const results: GateResult[] = [];
  const outcomes: GateOutcome[] = [];
  let top: string | null = null;
  const copiesLeft: string[] = [];
  const line = ctx.operator;
  for (const [i, gate] of selected.entries()) {
    if (ctx.signal.aborted) break;
    const copy = await makeCopy(ctx.processes, dir, ctx.stateDir, randomId(), undefined, ctx.workspace);
    if (!copy.ok)
      return results.length > 0 ? refuse(copy.refusal.code, copy.refusal.message, { gates: results }) : copy;
    top = copy.value.top;
    ctx.activity?.(`${gate.name} (${i + 1} of ${selected.length})`);
    // On a GitHub Actions log: the gate's output as it comes, in a group of its own.
    const group = ctx.ci === "github" && line ? githubGroup(gate.name, i + 1, selected.length, line) : undefined;
    group?.open();
    let run: Awaited<ReturnType<typeof ctx.processes.run>>;
    try {
      // Only the copy is writable: a gate cannot write the real checkout or plant a gate in it.
      run = await ctx.processes.run({
        argv: ["bash", gate.script],
        cwd: copy.value.cwd,
        deadlineMs,
        sandboxed: true,
        writable: [copy.value.root],
        values: { TOOLGATE_GATE: gate.name },
        ...(group ? { output: group.output } : {}),
      });
    } finally {
      group?.close();
      if (!copy.value.remove()) copiesLeft.push(gate.name);
    }
    if (!run.ok && run.refusal.code === "launch.cancelled") break;
    const r = gateResult(gate, run, deadlineMs, tailBytes);
    // A failed gate's annotation points at the first file:line its output names in the repository.
    const place =
      !r.outcome.passed && ctx.ci === "github" && conf.annotations
        ? firstPlace(`${r.outcome.stderr}\n${r.outcome.stdout}`, {
            cwd: copy.value.cwd,
            copyRoot: copy.value.root,
            top: copy.value.top,
          })
        : null;
    const outcome = place ? { ...r.outcome, place } : r.outcome;
    if (ctx.ci && line) line(verdictLine(outcome));
    results.push(r.result);
    outcomes.push(outcome);
  }
  if (ctx.signal.aborted)
    return refuse(
      "dev_check.cancelled",
      "the call was cancelled; the running gate was stopped with its whole process tree and its copy removed",
    );

  const failedGates = outcomes.filter((o) => !o.passed);
  if (outcomes.length > 0) ctx.stepSummary?.(stepSummary(outcomes));
  if (conf.annotations && ctx.operator) {
    for (const o of failedGates) ctx.operator(annotation(o, top === null ? null : relative(top, join(dir, o.script))));
  }
  const report = {
    gates: results,
    passed: outcomes.length - failedGates.length,
    failed: failedGates.length,
    sandbox: ctx.processes.sandboxMode,
    ...(copiesLeft.length > 0 ? { copiesLeft } : {}),
  };
  let junit: string | undefined;
  if (args.junit !== undefined) {
    // The gates ran in the workspace's copy, but a gate could still have planted a symlink in
    // the workspace: the report goes only where the write permission was checked before they ran.
    const now = resolveInside(ctx.workspace, args.junit);
    if (!now.ok || now.value.abs !== junitChecked) {
      return refuse(
        "dev_check.junit_moved",
        `the JUnit path "${args.junit}" resolves elsewhere than when its write permission was checked; ` +
          `nothing was written`,
      );
    }
    const written = await writeFile(
      ctx.workspace,
      { path: args.junit, content: junitXml(outcomes), overwrite: true },
      { stateDir: ctx.stateDir, ...(ctx.controlFiles ? { controlFiles: ctx.controlFiles } : {}) },
    );
    if (!written.ok)
      return refuse(
        written.refusal.code,
        `the gates ran, but the JUnit report could not be written: ${written.refusal.message}`,
        report,
      );
    junit = (written.value as { path: string }).path;
  }
  const value = junit === undefined ? report : { ...report, junit };
  if (failedGates.length === 0) return ok(value);
  const list = failedGates.map((o) => `${o.name} (${o.how})`).join(", ");
  return refuse(
    "dev_check.failed",
    `${failedGates.length} of ${outcomes.length} gates failed: ${list}; their tails are in details`,
    value,
  );
}

type Run = Awaited<ReturnType<ToolContext["processes"]["run"]>>;

function gateResult(
  gate: Gate,
  run: Run,
  deadlineMs: number,
  tailBytes: number,
): { result: GateResult; outcome: GateOutcome } {
  if (!run.ok) {
    const result: GateResult = {
      name: gate.name,
      script: gate.script,
      status: "failed",
      exitCode: null,
      ended: "not_started",
      durationMs: 0,
      error: run.refusal.message,
    };
    return {
      result,
      outcome: {
        name: gate.name,
        script: gate.script,
        passed: false,
        how: `not started: ${run.refusal.code}`,
        durationMs: 0,
        stdout: "",
        stderr: run.refusal.message,
      },
    };
  }
  const e = run.value;
  const passed = e.ended === "exited" && e.code === 0;
  const stdout = streamView(e.stdout, tailBytes);
  const stderr = streamView(e.stderr, tailBytes);
  const durationMs = Math.round(e.durationMs);
  const result: GateResult = {
    name: gate.name,
    script: gate.script,
    status: passed ? "passed" : "failed",
    exitCode: e.ended === "exited" ? e.code : null,
    ended: e.ended,
    durationMs,
    stdout,
    stderr,
  };
  return {
    result,
    outcome: {
      name: gate.name,
      script: gate.script,
      passed,
      how: endedText(e, deadlineMs),
      durationMs,
      stdout: stdout.tail,
      stderr: stderr.tail,
    },
  };
}

function randomId(): string {
  return [...crypto.getRandomValues(new Uint8Array(8))].map((b) => b.toString(16).padStart(2, "0")).join("");
}
