// The CI a call runs in, from the environment the entry point was given: GitHub Actions (its log
// reads workflow commands; GITHUB_STEP_SUMMARY names the job's summary file), another CI (plain
// lines), or none. The summary file is the runner's, named only by the environment, never by a
// config a repository could write; it is appended to, never followed through a link.
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { isCI } from "../config/ci.ts";
import type { CallScope } from "../catalog/declare.ts";

export function ciScope(env: Readonly<Record<string, string | undefined>>): Pick<CallScope, "ci" | "stepSummary"> {
  if (env.GITHUB_ACTIONS === "true") {
    const file = env.GITHUB_STEP_SUMMARY;
    return { ci: "github", ...(file ? { stepSummary: (markdown: string) => appendTo(file, markdown) } : {}) };
  }
  return isCI(env) ? { ci: "plain" } : {};
}

function appendTo(file: string, text: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o644);
    writeSync(fd, text);
  } catch {
    // A summary that cannot be written costs the log a table, not the call its result.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
