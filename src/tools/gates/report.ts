// dev_check's gates and its reports for CI: finding the gate scripts by the configured pattern,
// the JUnit XML document, and GitHub Actions `::error` workflow commands for failed gates.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { ok, refuse, type Outcome } from "../../result/result.ts";

export interface Gate {
  /** The part of the file name the pattern's `*` matched. */
  readonly name: string;
  /** The script, relative to the gates directory ("script/check-types.sh"). */
  readonly script: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Gates under `dir` matching `pattern`: one `*`, in the last segment, no other wildcard. Sorted by name. */
export function findGates(dir: string, pattern: string): Outcome<Gate[]> {
  const star = pattern.indexOf("*");
  const slash = pattern.lastIndexOf("/");
  if (
    star === -1 ||
    pattern.indexOf("*", star + 1) !== -1 ||
    star < slash ||
    /[?[\]{}]/.test(pattern) ||
    pattern.startsWith("/") ||
    pattern.split("/").includes("..")
  ) {
    return refuse(
      "dev_check.pattern_invalid",
      `gates.pattern "${pattern}" must hold exactly one "*" in its file name and no other wildcard, relative ` +
        `to the gates directory (e.g. "script/check-*.sh")`,
    );
  }
  const folder = pattern.slice(0, slash + 1);
  const prefix = pattern.slice(slash + 1, star);
  const suffix = pattern.slice(star + 1);
  let names: string[];
  try {
    names = readdirSync(join(dir, folder));
  } catch {
    return ok([]);
  }
  const gates: Gate[] = [];
  for (const file of names) {
    if (!file.startsWith(prefix) || !file.endsWith(suffix) || file.length <= prefix.length + suffix.length) continue;
    const name = file.slice(prefix.length, file.length - suffix.length);
    if (!NAME.test(name) || !isFile(join(dir, folder, file))) continue;
    gates.push({ name, script: `${folder}${file}` });
  }
  return ok(gates.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)));
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** What the reports need of one gate's run. */
export interface GateOutcome {
  readonly name: string;
  readonly script: string;
  readonly passed: boolean;
  /** "exit code 1", "timeout after 600 s", ... */
  readonly how: string;
  readonly durationMs: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The first file:line (and column) of the repository a failed gate's output names (ci-log.ts). */
  readonly place?: { readonly file: string; readonly line: number; readonly col?: number };
}

/** XML 1.0 forbids most control characters even as references: they become U+FFFD. */
const INVALID_XML =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function xml(s: string): string {
  return s
    .replace(INVALID_XML, "\ufffd")
    .replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!);
}

const secs = (ms: number) => (ms / 1000).toFixed(3);

/** One <testsuite> named dev_check, a <testcase> per gate; a failed gate carries a <failure>. */
export function junitXml(gates: readonly GateOutcome[]): string {
  const failures = gates.filter((g) => !g.passed).length;
  const total = gates.reduce((t, g) => t + g.durationMs, 0);
  const head = `tests="${gates.length}" failures="${failures}" errors="0" skipped="0" time="${secs(total)}"`;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="dev_check" ${head}>`,
    `  <testsuite name="dev_check" ${head}>`,
  ];
  for (const g of gates) {
    lines.push(
      `    <testcase classname="dev_check" name="${xml(g.name)}" file="${xml(g.script)}" time="${secs(g.durationMs)}">`,
    );
    if (!g.passed)
      lines.push(
        `      <failure message="${xml(`gate ${g.name} failed: ${g.how}`)}" ` +
          `type="${xml(g.how.split(" ")[0]!)}">${xml(g.stderr || g.stdout)}</failure>`,
      );
    if (g.stdout) lines.push(`      <system-out>${xml(g.stdout)}</system-out>`);
    if (g.stderr) lines.push(`      <system-err>${xml(g.stderr)}</system-err>`);
    lines.push("    </testcase>");
  }
  lines.push("  </testsuite>", "</testsuites>", "");
  return lines.join("\n");
}

/** Lines of output an annotation carries at most. */
const ANNOTATION_LINES = 20;

// Workflow command escaping: the message may not break the line; properties also not the syntax.
const escapeData = (s: string) => s.replaceAll("%", "%25").replaceAll("\r", "%0D").replaceAll("\n", "%0A");
const escapeProperty = (s: string) => escapeData(s).replaceAll(":", "%3A").replaceAll(",", "%2C");

/**
 * `::error file=...,title=...::message` for a failed gate: GitHub's runner reads workflow commands
 * from a step's stdout and stderr alike, so they go to stderr and stdout stays the one result.
 * `file` is the place the gate's output names, else the script, relative to the repository's top folder.
 */
export function annotation(g: GateOutcome, fileInRepo: string | null): string {
  const output = (g.stderr.trim() || g.stdout.trim()).split("\n").slice(-ANNOTATION_LINES).join("\n");
  const at = g.place
    ? [`file=${escapeProperty(g.place.file)}`, `line=${g.place.line}`, ...(g.place.col ? [`col=${g.place.col}`] : [])]
    : fileInRepo
      ? [`file=${escapeProperty(fileInRepo)}`]
      : [];
  const props = [...at, `title=${escapeProperty(`dev_check: gate ${g.name} failed`)}`];
  return `::error ${props.join(",")}::${escapeData(`${g.how}${output ? `\n${output}` : ""}`)}`;
}
