// The official MCP conformance suite's auth/* client scenarios (every non-draft, non-extension
// one, two client-credentials extensions and three drafts) against the compiled binary through test/conformance/auth-client.ts:
// `toolgate auth` then a call; each scenario passes with no failed or warning check.
import { describe, expect, test } from "bun:test";
import { verdicts } from "./client.ts";
import { runAuthScenario } from "./auth-client.ts";

const SCENARIOS = [
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
  // Extension scenarios: client credentials (CI), no person involved, with a secret or a signed JWT.
  "auth/client-credentials-basic",
  "auth/client-credentials-jwt",
  // Draft scenarios that pass as well: a metadata `resource` for another server is refused
  // before any authorization; offline_access asked for only where the server lists it.
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
];

describe("conformance auth scenarios", () => {
  test.each(SCENARIOS)(
    "%s passes with no failed check",
    async (scenario) => {
      const r = await runAuthScenario(scenario, 20_000);
      const all = verdicts(r.checks);
      const bad = all.filter((v) => !v.endsWith(": SUCCESS"));
      expect({ scenario, bad }).toEqual({ scenario, bad: [] });
      expect(all.length).toBeGreaterThan(0);
      expect(r.code).toBe(0);
    },
    60_000,
  );
});
