#!/usr/bin/env bun
// The client under test for the suite's auth/* scenarios: the COMPILED dist/toolgate as a user
// runs it. A trusted --config names the scenario's server (with the scenario's pre-registered
// client or metadata URL in its `oauth` block), then `toolgate auth conf` and a call of its tool.
// This script is the user's browser: it opens each authorization URL `auth` prints on stderr
// (the suite's authorization endpoint answers with a redirect to toolgate's loopback listener).
// Net is granted host:port by host:port, as a user would after reading each refusal's flag.
// Usage: conformance client --command "bun test/conformance/auth-client.ts" --scenario auth/NAME
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, netGrants, runScenario, SERVER } from "./client.ts";

/** The client settings a scenario gives its client (MCP_CONFORMANCE_CONTEXT), as the `oauth` block; secrets as ${CONF_SECRET}. */
export function oauthFor(
  scenario: string,
  context: Record<string, string>,
): { oauth?: Record<string, string>; env: Record<string, string> } {
  if (scenario === "auth/basic-cimd")
    return { oauth: { client_metadata_url: "https://conformance-test.local/client-metadata.json" }, env: {} };
  const secret = context.client_secret;
  const key = context.private_key_pem;
  const env: Record<string, string> = { ...(secret ? { CONF_SECRET: secret } : {}), ...(key ? { CONF_KEY: key } : {}) };
  const creds = context.client_id
    ? {
        client_id: context.client_id,
        ...(secret ? { client_secret: "${CONF_SECRET}" } : {}),
        ...(key ? { private_key: "${CONF_KEY}", signing_algorithm: context.signing_algorithm ?? "ES256" } : {}),
      }
    : undefined;
  if (scenario.startsWith("auth/client-credentials")) return { oauth: { ...creds, grant: "client_credentials" }, env };
  return creds ? { oauth: creds, env } : { env };
}

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs the binary; each http(s) URL alone on a stderr line is opened as a browser would (GET,
 * redirects followed) while it runs.
 */
export async function runBin(args: readonly string[], env: Record<string, string>, cwd: string): Promise<Ran> {
  const proc = Bun.spawn([BIN, ...args], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const opened: Promise<unknown>[] = [];
  let stderr = "";
  const decoder = new TextDecoder();
  let line = "";
  for await (const chunk of proc.stderr) {
    const text = decoder.decode(chunk, { stream: true });
    stderr += text;
    process.stderr.write(text);
    line += text;
    const lines = line.split("\n");
    line = lines.pop()!;
    for (const l of lines)
      if (/^https?:\/\/\S+$/.test(l))
        opened.push(
          fetch(l)
            .then((r) => r.text())
            .catch(() => ""),
        );
  }
  const [stdout, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  await Promise.all(opened);
  process.stdout.write(stdout);
  return { code, stdout, stderr };
}

/** The flags a refusal names that are not granted yet (`--allow-net=HOST:PORT`). */
const askedFor = (stderr: string, have: readonly string[]) =>
  [...stderr.matchAll(/--allow-net=([^\s,;)]+)/g)].map((m) => m[1]!).filter((g) => !have.includes(g));

/** `toolgate auth`, granting each further host it names (the authorization server's), a few times at most. */
async function authorize(
  base: readonly string[],
  grants: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<Ran> {
  for (let i = 0; ; i++) {
    const r = await runBin(["auth", SERVER, ...base, `--allow-net=${grants.join(",")}`], env, cwd);
    const more = askedFor(r.stderr, grants);
    if (r.code === 0 || more.length === 0 || i >= 4) return r;
    // A loopback name is dialled at its address: grant both, as the user reading the refusal would.
    for (const g of more) grants.push(...netGrants(`http://${g}`));
  }
}

async function main(url: string, scenario: string, context: Record<string, string>): Promise<number> {
  const home = mkdtempSync(join(tmpdir(), "toolgate-conformance-auth-"));
  try {
    const { oauth, env: secrets } = oauthFor(scenario, context);
    // The workspace (the config's folder) apart from the user's state folder: tokens are never kept inside a workspace.
    const ws = join(home, "ws");
    mkdirSync(ws);
    const config = join(ws, "conformance.json");
    writeFileSync(
      config,
      JSON.stringify({ mcpServers: { [SERVER]: { type: "http", url, ...(oauth ? { oauth } : {}) } } }, null, 2),
    );
    const env = {
      PATH: "/usr/bin:/bin",
      HOME: home,
      XDG_STATE_HOME: join(home, "state"),
      TERM: "dumb",
      CI: "true",
      ...secrets,
    };
    const base = [
      "--config",
      config,
      "--approve",
      "all",
      ...(Object.keys(secrets).length ? [`--allow-env=${Object.keys(secrets).join(",")}`] : []),
    ];
    const grants = netGrants(url);
    const call = () =>
      runBin(["call", `${SERVER}__test-tool`, "{}", ...base, `--allow-net=${grants.join(",")}`], env, ws);
    if (!scenario.startsWith("auth/client-credentials")) {
      const a = await authorize(base, grants, env, ws);
      if (a.code !== 0) return a.code;
    }
    // A call refused for a wider scope (step-up) is authorized again, a bounded number of times.
    for (let i = 0; ; i++) {
      const c = await call();
      const more = askedFor(c.stderr, grants);
      if (c.code === 0 || i >= 2) return c.code;
      if (more.length > 0) grants.push(...more.flatMap((g) => netGrants(`http://${g}`)));
      else if (/mcp\.auth_required/.test(c.stdout + c.stderr)) {
        const a = await authorize(base, grants, env, ws);
        if (a.code !== 0) return a.code;
      } else return c.code;
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

/** Runs one auth scenario of the suite against this wrapper: its checks (checks.json), exit code and output. */
export const runAuthScenario = (scenario: string, timeoutMs = 30_000) =>
  runScenario(scenario, { timeoutMs, wrapper: "auth-client.ts" });

if (import.meta.main) {
  const url = process.argv.at(-1);
  if (!url || !/^https?:\/\//.test(url)) {
    console.error("usage: bun test/conformance/auth-client.ts URL (MCP_CONFORMANCE_SCENARIO names the scenario)");
    process.exit(2);
  }
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as Record<string, string>;
  process.exit(await main(url, process.env.MCP_CONFORMANCE_SCENARIO ?? "", context));
}
