// The official MCP conformance suite (client mode) against the compiled binary, through
// test/conformance/client.ts: each non-auth scenario passes with zero failed checks.
import { describe, expect, test } from "bun:test";
import { runScenario, verdicts } from "./client.ts";

const SCENARIOS: Record<string, string[]> = {
  initialize: ["mcp-client-initialization: SUCCESS"],
  tools_call: ["tool-add-numbers: SUCCESS"],
  "elicitation-sep1034-client-defaults": ["string", "integer", "number", "enum", "boolean"].map(
    (k) => `client-elicitation-sep1034-${k}-default: SUCCESS`,
  ),
  "sse-retry": [
    "client-sse-graceful-reconnect: SUCCESS",
    "client-sse-retry-timing: SUCCESS",
    "client-sse-last-event-id: SUCCESS",
  ],
};

describe("conformance client scenarios", () => {
  for (const [scenario, expected] of Object.entries(SCENARIOS)) {
    test(scenario, async () => {
      const r = await runScenario(scenario, { timeoutMs: 20_000 });
      expect({ scenario, verdicts: verdicts(r.checks) }).toEqual({ scenario, verdicts: expected });
      expect(r.code).toBe(0);
    });
  }
});
