import { describe, expect, test } from "bun:test";
import { readEnvelope } from "../../../src/tools/delegate/envelope.ts";

describe("readEnvelope", () => {
  test("the last line as JSON {summary, findings}", () => {
    expect(readEnvelope('progress...\n{"summary":"s","findings":["a",{"b":1}]}\n', "exit code 0", "done", 100)).toEqual(
      { status: "done", summary: "s", findings: ["a", '{"b":1}'], truncated: false, exit: "exit code 0" },
    );
  });

  test("free text is the summary", () => {
    expect(readEnvelope("  it is in src/x.ts\n", "exit code 1", "failed", 100)).toEqual({
      status: "failed",
      summary: "it is in src/x.ts",
      findings: [],
      truncated: false,
      exit: "exit code 1",
    });
  });

  test("the output bound clips summary then findings, and says so", () => {
    expect(
      readEnvelope(JSON.stringify({ summary: "12345", findings: ["abc", "def"] }), "exit code 0", "done", 7),
    ).toEqual({ status: "done", summary: "12345", findings: ["ab"], truncated: true, exit: "exit code 0" });
    expect(readEnvelope("x".repeat(10), "timeout", "timeout", 4)).toEqual({
      status: "timeout",
      summary: "xxxx",
      findings: [],
      truncated: true,
      exit: "timeout",
    });
  });
});
