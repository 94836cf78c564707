// MCP servers started unsandboxed in product mode, during unrelated calls, and
// `"${NAME}"` in a server's env handed the parent's secrets over with no --allow-env. A probe
// server (test/fixtures/mcp/probe-server.ts) writes a marker when it starts and reports whether
// it reaches a loopback listener, can write a host folder, and sees the secret.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, tempDir, type RunResult } from "../helpers.ts";
import { HELLO, serveMcp, type HttpMcp } from "../support/http-mcp-server.ts";

const PROBE_SOURCE = join(import.meta.dir, "..", "fixtures", "mcp", "probe-server.ts");
const TOKEN = "ghp_probeSecretValue0123456789";
const AWS = "aws-secret-probe-value-9876543210";

let listener: Bun.TCPSocketListener<undefined>;
let hostDir: string;
let probeBundle: string;
beforeAll(async () => {
  // The sandbox shows the workspace, not the checkout (which may sit under /tmp or /root): the probe
  // runs as one self-contained file written into each workspace.
  const built = await Bun.build({ entrypoints: [PROBE_SOURCE], target: "bun" });
  if (!built.success) throw new Error(`could not bundle the probe server: ${built.logs.join("\n")}`);
  probeBundle = await built.outputs[0]!.text();
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
  listener = Bun.listen<undefined>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data() {},
      open(s) {
        s.end();
      },
    },
  });
  // A host folder outside the workspace (and outside /tmp, which the sandbox replaces).
  hostDir = mkdtempSync("/var/tmp/toolgate-host-");
});
afterAll(() => {
  listener.stop(true);
  rmSync(hostDir, { recursive: true, force: true });
});

interface Setup {
  sandbox: "off" | "product";
  server?: Record<string, unknown>;
}

/** The probe server as one file inside `ws`, where every sandbox mode can see it. */
function probeIn(ws: string): string {
  const path = join(ws, "probe-server.js");
  writeFileSync(path, probeBundle);
  return path;
}

/** A workspace whose toolgate.json declares the probe server; the config is passed with --config (the user's own). */
function workspace(ws: string, o: Setup): { config: string; marker: string } {
  const marker = join(ws, "probe-started");
  const config = join(ws, "toolgate.json");
  const probe = {
    command: process.execPath,
    args: [probeIn(ws), `--marker=${marker}`, "--secret-name=GITHUB_TOKEN"],
    ...o.server,
  };
  writeFileSync(config, JSON.stringify({ sandbox: o.sandbox, mcpServers: { probe } }, null, 2));
  writeFileSync(join(ws, "a.txt"), "hello\n");
  return { config, marker };
}

const report = (r: RunResult) => JSON.parse(json(r).payload.content[0].text);

async function callReport(
  ws: string,
  config: string,
  file: string,
  extra: string[] = [],
  env: Record<string, string> = {},
) {
  const args = JSON.stringify({ port: listener.port, dir: hostDir, file });
  return run(["call", "probe__report", args, "--config", config, "--allow-run", "--approve", "all", ...extra], {
    cwd: ws,
    env,
  });
}

describe("MCP servers run under the boot's sandbox mode", () => {
  test("product: no network, no write to the host outside the workspace (sandbox off, the control, has both)", async () => {
    await using ws = tempDir();
    const off = workspace(ws.path, { sandbox: "off" });
    const free = await callReport(ws.path, off.config, "off.txt");
    expect([free.code, report(free)]).toMatchObject([0, { net: true, host_write: true }]);
    expect(existsSync(join(hostDir, "off.txt"))).toBe(true);

    await using ws2 = tempDir();
    const product = workspace(ws2.path, { sandbox: "product" });
    const r = await callReport(ws2.path, product.config, "product.txt");
    expect([r.code, report(r)]).toMatchObject([0, { net: false, host_write: false }]);
    expect(existsSync(product.marker)).toBe(true); // it ran, inside the sandbox
    expect(existsSync(join(hostDir, "product.txt"))).toBe(false);
  });

  test('product: a server that declares "network": true gets it only with --allow-net, and says so without', async () => {
    await using ws = tempDir();
    const { config, marker } = workspace(ws.path, { sandbox: "product", server: { network: true } });
    const refused = await callReport(ws.path, config, "n1.txt");
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain("--allow-net");
    expect(existsSync(marker)).toBe(false);
    const r = await callReport(ws.path, config, "n2.txt", ["--allow-net"]);
    expect([r.code, report(r)]).toMatchObject([0, { net: true, host_write: false }]);
  });

  test("product: a server without the key has no network even when a net grant exists", async () => {
    await using ws = tempDir();
    const { config } = workspace(ws.path, { sandbox: "product" });
    const r = await callReport(ws.path, config, "n3.txt", ["--allow-net"]);
    expect([r.code, report(r)]).toMatchObject([0, { net: false }]);
  });
});

describe('"${NAME}" in a server\'s env needs --allow-env=NAME', () => {
  const secrets = { env: { GITHUB_TOKEN: "${GITHUB_TOKEN}", AWS_SECRET_ACCESS_KEY: "${AWS_SECRET_ACCESS_KEY}" } };
  const parent = { GITHUB_TOKEN: TOKEN, AWS_SECRET_ACCESS_KEY: AWS };

  test("without it the server is not started: tools names the flag, a call is refused naming it (exit 4)", async () => {
    await using ws = tempDir();
    const { config, marker } = workspace(ws.path, { sandbox: "off", server: secrets });
    const listed = await run(["tools", "--config", config, "--allow-run"], { cwd: ws.path, env: parent });
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain("--allow-env=GITHUB_TOKEN");
    expect(listed.stdout).not.toContain("probe__report");
    const r = await callReport(ws.path, config, "s1.txt", [], parent);
    expect([r.code, json(r).error_code, json(r).details]).toEqual([
      4,
      "permission.denied",
      { flag: "--allow-env=GITHUB_TOKEN", flags: ["--allow-env=GITHUB_TOKEN"] },
    ]);
    const half = await callReport(ws.path, config, "s2.txt", ["--allow-env=GITHUB_TOKEN"], parent);
    expect([half.code, json(half).details]).toEqual([
      4,
      { flag: "--allow-env=AWS_SECRET_ACCESS_KEY", flags: ["--allow-env=AWS_SECRET_ACCESS_KEY"] },
    ]);
    expect(existsSync(marker)).toBe(false);
    for (const out of [listed, r, half]) expect(out.stdout + out.stderr).not.toContain(TOKEN);
  });

  test("with it the server starts and sees the secret, which no view shows", async () => {
    await using ws = tempDir();
    const { config, marker } = workspace(ws.path, { sandbox: "off", server: secrets });
    const r = await callReport(ws.path, config, "s3.txt", ["--allow-env=GITHUB_TOKEN,AWS_SECRET_ACCESS_KEY"], parent);
    expect([r.code, report(r).secret_seen]).toEqual([0, true]);
    expect(existsSync(marker)).toBe(true);
    const log = await run(["log", "--json", "--config", config], { cwd: ws.path });
    expect(r.stdout + r.stderr + log.stdout).not.toContain(TOKEN);
  });
});

describe("a call of a built-in never starts a server", () => {
  test("call file_read with a cold catalog cache starts none; tools does (the control)", async () => {
    await using ws = tempDir();
    const { config, marker } = workspace(ws.path, { sandbox: "off" });
    const r = await run(
      ["call", "file_read", '{"path":"a.txt"}', "--config", config, "--allow-read", "--allow-run", "--approve", "all"],
      { cwd: ws.path },
    );
    expect([r.code, json(r).status]).toEqual([0, "success"]);
    expect(existsSync(marker)).toBe(false);
    const other = await run(["call", "other__tool", "{}", "--config", config, "--allow-run", "--approve", "all"], {
      cwd: ws.path,
    });
    expect([other.code, json(other).error_code]).toEqual([1, "unknown_tool"]);
    expect(existsSync(marker)).toBe(false);
    const listed = await run(["tools", "--config", config, "--allow-run"], { cwd: ws.path });
    expect(listed.stdout).toContain("probe__report");
    expect(existsSync(marker)).toBe(true);
  });
});

describe('"${NAME}" in an HTTP server\'s headers needs --allow-env=NAME', () => {
  let web: HttpMcp;
  const seen: (string | null)[] = [];
  beforeAll(() => {
    web = serveMcp({
      tools: [{ ...HELLO, inputSchema: { type: "object" } }],
      route: (req) => void seen.push(req.headers.get("authorization")),
    });
  });
  afterAll(() => web.stop());

  test("without it nothing is dialled; with it the header carries the value, which no view shows", async () => {
    await using ws = tempDir();
    const hostPort = `127.0.0.1:${web.port}`;
    const config = join(ws.path, "toolgate.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          web: { type: "http", url: `http://${hostPort}/mcp`, headers: { Authorization: "Bearer ${WEB_TOKEN}" } },
        },
      }),
    );
    const grant = ["--config", config, `--allow-net=${hostPort}`, "--approve", "all"];
    const refused = await run(["call", "web__hello", "{}", ...grant], { cwd: ws.path, env: { WEB_TOKEN: TOKEN } });
    expect([refused.code, json(refused).details]).toEqual([
      4,
      { flag: "--allow-env=WEB_TOKEN", flags: ["--allow-env=WEB_TOKEN"] },
    ]);
    expect(seen).toEqual([]);
    const r = await run(["call", "web__hello", "{}", ...grant, "--allow-env=WEB_TOKEN"], {
      cwd: ws.path,
      env: { WEB_TOKEN: TOKEN },
    });
    expect([r.code, json(r).status]).toEqual([0, "success"]);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((h) => h === `Bearer ${TOKEN}`)).toBe(true);
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
  });
});

describe("Las runs under the boot's sandbox mode too", () => {
  test("product: the probe as Las has no network and cannot write the host", async () => {
    await using ws = tempDir();
    const config = join(ws.path, "toolgate.json");
    const las = {
      enabled: true,
      command: process.execPath,
      entrypoint: probeIn(ws.path),
      only: ["echo"],
      required_surfaces: [],
      timeout_secs: 30,
    };
    writeFileSync(config, JSON.stringify({ sandbox: "product", las }));
    const listed = await run(["tools", "--json", "--config", config, "--allow-run"], { cwd: ws.path });
    expect([listed.code, listed.stdout]).toEqual([0, expect.stringContaining('"name":"report"')]);
    const args = JSON.stringify({ port: listener.port, dir: hostDir, file: "las.txt" });
    const r = await run(
      ["call", "report", args, "--config", config, "--allow-run", "--allow-net", "--approve", "all"],
      { cwd: ws.path },
    );
    expect([r.code, report(r)]).toMatchObject([0, { net: false, host_write: false }]);
    expect(existsSync(join(hostDir, "las.txt"))).toBe(false);
  });
});
