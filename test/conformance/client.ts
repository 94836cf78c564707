#!/usr/bin/env bun
// The client under test for `@modelcontextprotocol/conformance client`: the suite appends the
// scenario server's URL and sets MCP_CONFORMANCE_SCENARIO. This writes a trusted config (`--config
// FILE`) with that one HTTP server and runs the COMPILED dist/toolgate as a user would: `tools`,
// then `call` of the scenario's tool, granting only loopback net to that host:port.
// Usage: conformance client --command "bun test/conformance/client.ts" --scenario NAME
import { globSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN } from "../helpers.ts";

/** dist/toolgate at its real path (test/helpers.ts): the same binary however the checkout is reached. */
export { BIN };
/** The server's name in the written config: its tools are `conf__<tool>`. */
export const SERVER = "conf";

export interface Step {
  readonly args: readonly string[];
  /** Lines typed at a terminal (the binary then runs on a pseudo-terminal via util-linux `script`). */
  readonly tty?: string;
}

/** What each scenario asks of a client: list, then call its tool (elicitation: accept the form's defaults). */
export function stepsFor(scenario: string): Step[] {
  const list: Step = { args: ["tools"] };
  switch (scenario) {
    case "initialize":
      return [list];
    case "tools_call":
      return [list, { args: ["call", `${SERVER}__add_numbers`, '{"a":2,"b":3}'] }];
    case "sse-retry":
      return [list, { args: ["call", `${SERVER}__test_reconnection`, "{}"] }];
    case "elicitation-sep1034-client-defaults":
      // Five fields, Enter keeps each default, then "a" accepts the form.
      return [list, { args: ["call", `${SERVER}__test_client_elicitation_defaults`, "{}"], tty: "\n\n\n\n\na\n" }];
    default:
      // Other scenarios (auth/*) at least connect and list.
      return [list];
  }
}

/** The config and grant flags for `url`: a trusted --config file, net granted to its host:port only. */
export function grantFor(url: string, configPath: string): string[] {
  writeFileSync(configPath, JSON.stringify({ mcpServers: { [SERVER]: { type: "http", url } } }, null, 2));
  return ["--config", configPath, `--allow-net=${netGrants(url).join(",")}`, "--approve", "all"];
}

/** `host:port` grants for a URL: "localhost" is dialled at the loopback address it resolves to. */
export function netGrants(url: string): string[] {
  const u = new URL(url);
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  const hosts = u.hostname === "localhost" ? ["localhost", "127.0.0.1", "[::1]"] : [u.hostname];
  return hosts.map((h) => `${h}:${port}`);
}

export interface Check {
  readonly id: string;
  readonly status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | string;
  readonly errorMessage?: string;
}

const SUITE = join(
  import.meta.dir,
  "..",
  "..",
  "node_modules",
  "@modelcontextprotocol",
  "conformance",
  "dist",
  "index.js",
);

/**
 * Runs one client scenario of the suite against this wrapper and returns its checks (the suite's
 * checks.json) with the suite's exit code and output. A scenario passes when no check is FAILURE
 * and at least one is SUCCESS (the suite's own summary rule).
 */
export async function runScenario(
  scenario: string,
  opts: { timeoutMs?: number; wrapper?: string } = {},
): Promise<{ code: number; checks: Check[]; output: string }> {
  const out = mkdtempSync(join(tmpdir(), "toolgate-conformance-out-"));
  try {
    const command = `${process.execPath} ${join(import.meta.dir, opts.wrapper ?? "client.ts")}`;
    const proc = Bun.spawn(
      [
        process.execPath,
        SUITE,
        "client",
        "--command",
        command,
        "--scenario",
        scenario,
        "-o",
        out,
        "--timeout",
        String(opts.timeoutMs ?? 30_000),
      ],
      {
        env: { PATH: "/usr/bin:/bin", HOME: out },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    const files = globSync("**/checks.json", { cwd: out });
    const checks = files.length === 1 ? (JSON.parse(readFileSync(join(out, files[0]!), "utf8")) as Check[]) : [];
    return { code, checks, output: `${stdout}\n${stderr}` };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The verdict the tests assert: every check that is not INFO, by id. */
export const verdicts = (checks: readonly Check[]) =>
  checks
    .filter((c) => c.status !== "INFO")
    .map((c) => `${c.id.trim()}: ${c.status}${c.errorMessage ? ` (${c.errorMessage})` : ""}`);

const quote = (a: string) => `'${a.replaceAll("'", `'\\''`)}'`;

async function runStep(step: Step, grant: readonly string[], home: string): Promise<number> {
  const argv = [BIN, ...step.args, ...grant];
  const env = { PATH: "/usr/bin:/bin", HOME: home, XDG_STATE_HOME: join(home, "state"), TERM: "dumb" };
  const proc =
    step.tty === undefined
      ? Bun.spawn(argv, {
          cwd: home,
          env: { ...env, CI: "true" },
          stdin: "ignore",
          stdout: "inherit",
          stderr: "inherit",
        })
      : Bun.spawn(["script", "-qec", argv.map(quote).join(" "), "/dev/null"], {
          cwd: home,
          env,
          stdin: new Blob([step.tty]),
          stdout: "inherit",
          stderr: "inherit",
        });
  return proc.exited;
}

if (import.meta.main) {
  const url = process.argv.at(-1);
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
  if (!url || !/^https?:\/\//.test(url)) {
    console.error("usage: bun test/conformance/client.ts URL (MCP_CONFORMANCE_SCENARIO names the scenario)");
    process.exit(2);
  }
  const home = mkdtempSync(join(tmpdir(), "toolgate-conformance-"));
  let code = 0;
  try {
    const grant = grantFor(url, join(home, "conformance.json"));
    for (const step of stepsFor(scenario)) {
      code = await runStep(step, grant, home);
      if (code !== 0) break;
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  process.exit(code);
}
