import { expect, test } from "bun:test";
import { exitCodeFor } from "../../src/result/exit.ts";
import type { Envelope } from "../../src/result/result.ts";

test.each([
  [{ status: "success", tool: "t", payload: 1 }, 0],
  [{ status: "failed", tool: "t", error_code: "file.missing" }, 1],
  [{ status: "failed", tool: "t", error_code: "args.invalid" }, 1],
  [{ status: "failed", tool: "t", error_code: "unknown_tool" }, 1],
  [{ status: "failed", error_code: "sensitive_output_rejected" }, 1],
  [{ status: "indeterminate", tool: "t", error_code: "transport_lost" }, 3],
  [{ status: "failed", tool: "t", error_code: "permission.denied" }, 4],
  [{ status: "failed", tool: "t", error_code: "approval.required" }, 4],
  [{ status: "failed", tool: "t", error_code: "approval.denied" }, 4],
  [{ status: "failed", tool: "t", error_code: "approval.child_unattended" }, 4],
  [{ status: "failed", tool: "t", error_code: "descriptor_changed" }, 5],
  [{ status: "failed", tool: "t", error_code: "descriptor_unpinned" }, 5],
  [{ status: "failed", tool: "t", error_code: "cancelled", details: { signal: "SIGINT" } }, 130],
  [{ status: "failed", tool: "t", error_code: "cancelled", details: { signal: "SIGTERM" } }, 143],
  [{ status: "indeterminate", tool: "t", error_code: "interrupted", details: { signal: "SIGINT" } }, 130],
  [{ status: "indeterminate", tool: "t", error_code: "interrupted", details: { signal: "SIGTERM" } }, 143],
  // Only a signal toolgate names, on the codes of an interrupted call: a tool's own details say nothing.
  [{ status: "failed", tool: "t", error_code: "cancelled" }, 1],
  [{ status: "failed", tool: "t", error_code: "cancelled", details: { signal: "SIGHUP" } }, 1],
  [{ status: "failed", tool: "t", error_code: "bash.signalled", details: { signal: "SIGINT" } }, 1],
  [{ status: "indeterminate", tool: "t", error_code: "transport_lost", details: { signal: "SIGINT" } }, 3],
] as [Envelope, number][])("%p exits %p", (env, code) => {
  expect<number>(exitCodeFor(env)).toBe(code);
});
