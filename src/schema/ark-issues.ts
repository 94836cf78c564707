// The one place ArkErrors become our Issue shape, for the slow path after the fast check failed.
// Type-only import: this module must not load arktype at run time.
import type { ArkErrors } from "arktype";
import type { Issue } from "./validate.ts";

export function arkIssues(errors: ArkErrors): Issue[] {
  const issues: Issue[] = [];
  // An "intersection" error bundles several problems at one path; `flat` lists them one by one.
  for (const error of errors.flatMap((e) => e.flat)) {
    // Array.from, not path.map: ReadonlyPath's species turns an empty path into [0].
    const path = Array.from(error.path, (k) => (typeof k === "symbol" ? String(k) : k));
    // The default message is the path then the problem; a configured message is kept whole.
    const message = error.message === `${error.propString} ${error.problem}` ? error.problem : error.message;
    issues.push({ path, message });
  }
  return issues;
}
