// The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16, run under Bun: it
// does not start on Node 20) in server mode against dist/toolgate serve --http --no-token. Every
// scenario's outcome is pinned: the ones toolgate must pass, and the ones that ask for tools or
// methods a gateway does not serve (docs/mcp.md "The MCP conformance suite" argues each).
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../helpers.ts";
import { serveHttp } from "./http-client.ts";

const CONFORMANCE = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");

/** The scenarios the issue requires to pass. */
const REQUIRED = [
  "server-initialize",
  "ping",
  "tools-list",
  "tools-call-error",
  "logging-set-level",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];

/**
 * Every server scenario of 0.1.16 (`--suite all`: the active ones and the pending
 * json-schema-2020-12 and server-sse-polling) with its outcome here. A "fail" calls a tool of the
 * suite's reference server (test_*, json_schema_2020_12_tool) that toolgate does not have, or a
 * method toolgate does not declare (resources, prompts, completions), answered -32601.
 */
const OUTCOMES: Record<string, "pass" | "fail"> = {
  "server-initialize": "pass",
  "logging-set-level": "pass",
  ping: "pass",
  "completion-complete": "fail",
  "tools-list": "pass",
  // Passes on toolgate's unknown_tool refusal (a text content item is all it checks): no test_simple_text here.
  "tools-call-simple-text": "pass",
  "tools-call-image": "fail",
  "tools-call-audio": "fail",
  "tools-call-embedded-resource": "fail",
  "tools-call-mixed-content": "fail",
  "tools-call-with-logging": "fail",
  "tools-call-error": "pass",
  "tools-call-with-progress": "fail",
  "tools-call-sampling": "fail",
  "tools-call-elicitation": "fail",
  "json-schema-2020-12": "fail",
  "elicitation-sep1034-defaults": "fail",
  "server-sse-polling": "fail",
  "server-sse-multiple-streams": "pass",
  "elicitation-sep1330-enums": "fail",
  "resources-list": "fail",
  "resources-read-text": "fail",
  "resources-read-binary": "fail",
  "resources-templates-read": "fail",
  "resources-subscribe": "fail",
  "resources-unsubscribe": "fail",
  "prompts-list": "fail",
  "prompts-get-simple": "fail",
  "prompts-get-with-args": "fail",
  "prompts-get-embedded-resource": "fail",
  "prompts-get-with-image": "fail",
  "dns-rebinding-protection": "pass",
};

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
  details?: any;
}

/** Scenario name → its checks, from the suite's output folder (server-<scenario>-<timestamp>/checks.json). */
function results(dir: string): Record<string, Check[]> {
  const out: Record<string, Check[]> = {};
  for (const d of readdirSync(dir)) {
    const scenario = d.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "");
    out[scenario] = JSON.parse(readFileSync(join(dir, d, "checks.json"), "utf8"));
  }
  return out;
}

/** One run of the whole suite against `url`: its exit code, stdout, and every scenario's checks. */
async function runSuite(url: string, cwd: string, home: string, out: string) {
  const proc = Bun.spawn([process.execPath, CONFORMANCE, "server", "--url", url, "--suite", "all", "-o", out], {
    cwd,
    env: { PATH: "/usr/bin:/bin", HOME: home },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, , code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const checks = results(out);
  const outcome = Object.fromEntries(
    Object.entries(checks).map(([s, cs]) => [s, cs.every((c) => c.status !== "FAILURE") ? "pass" : "fail"]),
  );
  return { code, stdout, checks, outcome };
}

describe("the MCP conformance suite against serve --http", () => {
  test("the required scenarios pass, every other scenario's outcome is the one argued in docs/mcp.md, and a second run right after gets the same", async () => {
    await using root = tempDir();
    const ws = join(root.path, "ws");
    const home = join(root.path, "home");
    mkdirSync(ws);
    await using served = await serveHttp(["--http", "127.0.0.1:0", "--no-token"], { cwd: ws, home });
    // One run leaves its sessions open (the suite never ends them); the second must not be locked out.
    for (const run of [1, 2]) {
      const { code, stdout, checks, outcome } = await runSuite(
        served.url,
        root.path,
        home,
        join(root.path, `results-${run}`),
      );
      expect([run, outcome]).toEqual([run, OUTCOMES]);
      for (const s of REQUIRED)
        expect([run, s, checks[s]!.filter((c) => c.status === "SUCCESS").length > 0]).toEqual([run, s, true]);
      // Some scenarios fail, so the suite says so.
      expect(code).toBe(1);
      expect(stdout).toContain("=== SUMMARY ===");
      // What tools-call-error and tools-call-simple-text actually received: toolgate's refusal of a tool it does not have.
      for (const s of ["tools-call-error", "tools-call-simple-text"]) {
        expect(checks[s]![0]!.details.result).toMatchObject({
          isError: true,
          _meta: { toolgate: { status: "failed", error_code: "unknown_tool" } },
        });
      }
      expect(checks["completion-complete"]![0]!.errorMessage).toBe("Failed: MCP error -32601: Method not found");
      expect(checks["dns-rebinding-protection"]!.map((c) => [c.id, c.status])).toEqual([
        ["localhost-host-rebinding-rejected", "SUCCESS"],
        ["localhost-host-valid-accepted", "SUCCESS"],
      ]);
      // server-sse-polling: the answer on the POST stream carries an event id (it had none before
      // event ids); no priming event or retry, as the scenario's POST says protocol 2025-03-26 and the
      // SDK primes only 2025-11-25 clients (test/serve/http-sessions.test.ts shows both, and a
      // replay); it fails only on its test_reconnection tool, which a gateway does not have.
      const polling = checks["server-sse-polling"]!;
      expect(polling.filter((c) => c.id === "incoming-sse-event").map((c) => typeof c.details.eventId)).toEqual([
        "string",
        "string",
      ]);
      expect(polling.filter((c) => c.status === "FAILURE").map((c) => [c.id, c.errorMessage])).toEqual([
        ["incoming-sse-event", "Tool call failed"],
      ]);
    }
    expect(await served.stop()).toBe(0);
  }, 120_000);
});
