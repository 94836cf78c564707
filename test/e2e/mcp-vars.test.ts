// End to end: variables in an mcpServers entry as clients write them (${NAME}, ${NAME:-default},
// ${env:NAME}, ${workspaceFolder}, ${userHome}, envFile), seen from the far side on loopback
// listeners: what a stdio server was started with, and what an HTTP server was sent.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";
import { HELLO, serveMcp, type HttpMcp } from "../support/http-mcp-server.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "mcp", "vars.ts");
const TOKEN = "tok-5ecret-77";
const GRANT = ["--allow-run", "--approve", "all"];
// The fixture answers with its argv, `--root=<workspace>` among it: an absolute path after `=`,
// which the output boundary withholds unless the user lets this server's paths through.
const PATHS = "--allow-local-paths=v";
type Report = { args: string[]; env: Record<string, string> };

let listener: HttpMcp;
const reports: Report[] = [];
const seen: { url: string; key: string | null }[] = [];
beforeAll(() => {
  listener = serveMcp({
    tools: [{ ...HELLO, inputSchema: { type: "object" } }],
    route: async (req) => {
      if (new URL(req.url).pathname === "/report") {
        reports.push((await req.json()) as Report);
        return new Response("ok");
      }
      seen.push({ url: req.url, key: req.headers.get("x-api-key") });
      return undefined;
    },
  });
});
afterAll(() => listener.stop());

const report = () => `http://127.0.0.1:${listener.port}/report`;
const write = (dir: string, servers: Record<string, unknown>) =>
  writeFileSync(join(dir, "toolgate.json"), JSON.stringify({ mcpServers: servers }, null, 2));
const stdio = (extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [
    FIXTURE,
    report(),
    "--token=${env:API_TOKEN}",
    "--root=${workspaceFolder}",
    "--home=${userHome}",
    "--mode=${MODE:-fast}",
  ],
  env: { AUTH: "Bearer ${API_TOKEN}", PLAIN: "literal" },
  ...extra,
});

describe("stdio: args and env", () => {
  test("each form expands; the parent's variable needs --allow-env and is redacted from every view", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "server.env"), "# the server's keys\nFILE_KEY=from-file-key\nexport DEBUG=1\n");
    write(dir.path, {
      v: stdio({ envFile: "server.env", env: { AUTH: "Bearer ${API_TOKEN}", PLAIN: "literal", SHOW: "FILE_KEY" } }),
    });
    const env = { API_TOKEN: TOKEN };
    reports.length = 0;
    const refused = await run(["call", "v__argv", "{}", ...GRANT], { cwd: dir.path, env });
    expect([refused.code, json(refused).details]).toEqual([
      4,
      { flag: "--allow-env=API_TOKEN", flags: ["--allow-env=API_TOKEN"] },
    ]);
    expect(reports).toEqual([]);
    const r = await run(["call", "v__argv", "{}", ...GRANT, PATHS, "--allow-env=API_TOKEN"], { cwd: dir.path, env });
    expect([r.code, json(r)]).toEqual([
      0,
      {
        status: "success",
        tool: "v__argv",
        payload: {
          content: [
            { type: "text", text: `--token=[REDACTED] --root=${dir.path} --home=${dir.path} --mode=fast [REDACTED]` },
          ],
        },
      },
    ]);
    expect(reports.length).toBe(1);
    const got = reports[0]!;
    expect(got.args).toEqual([report(), `--token=${TOKEN}`, `--root=${dir.path}`, `--home=${dir.path}`, "--mode=fast"]);
    expect({
      AUTH: got.env.AUTH,
      PLAIN: got.env.PLAIN,
      FILE_KEY: got.env.FILE_KEY,
      DEBUG: got.env.DEBUG,
      API_TOKEN: got.env.API_TOKEN,
    }).toEqual({
      AUTH: `Bearer ${TOKEN}`,
      PLAIN: "literal",
      FILE_KEY: "from-file-key",
      DEBUG: "1",
      API_TOKEN: undefined,
    });
    const log = await run(["log", "--json"], { cwd: dir.path });
    expect(log.stdout).toContain("${API_TOKEN}");
    expect(log.stdout + r.stderr).not.toContain(TOKEN);
  });

  test("${NAME:-default} takes the parent's value when it is set (and then needs --allow-env)", async () => {
    await using dir = tempDir();
    write(dir.path, { v: stdio() });
    reports.length = 0;
    const r = await run(["call", "v__argv", "{}", ...GRANT, PATHS, "--allow-env=API_TOKEN", "--allow-env=MODE"], {
      cwd: dir.path,
      env: { API_TOKEN: TOKEN, MODE: "thorough" },
    });
    expect(r.code).toBe(0);
    expect(reports[0]!.args.at(-1)).toBe("--mode=thorough");
  });
});

describe("config errors name the variable and where it is written (exit 5)", () => {
  test.each([
    [{ args: ["${input:api-key}"] }, "mcpServers.v.args.0: ${input:api-key} is not a variable toolgate knows", 6],
    [
      { env: { K: "${NOT_SET}" } },
      "mcpServers.v.env.K: ${NOT_SET} takes NOT_SET from the environment, and NOT_SET is not set",
      6,
    ],
    [{ envFile: "missing.env" }, "mcpServers.v.envFile: cannot read", 5],
    [{ envFile: "../outside.env" }, "is outside", 5],
  ])("%p", async (entry, message, line) => {
    await using dir = tempDir();
    write(dir.path, { v: { command: process.execPath, ...entry } });
    const r = await run(["tools"], { cwd: dir.path });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`${join(dir.path, "toolgate.json")}:${line}: `);
    expect(r.stderr).toContain(message);
  });
});

describe("HTTP: url and headers", () => {
  test("a header and the URL's query carry the values; no view shows them", async () => {
    await using dir = tempDir();
    const hostPort = `127.0.0.1:${listener.port}`;
    write(dir.path, {
      web: {
        type: "http",
        url: `http://${hostPort}/mcp?key=\${env:WEB_KEY}`,
        headers: { "X-Api-Key": "k-${WEB_KEY}" },
      },
    });
    seen.length = 0;
    const grant = [`--allow-net=${hostPort}`, "--approve", "all"];
    const refused = await run(["call", "web__hello", "{}", ...grant], { cwd: dir.path, env: { WEB_KEY: TOKEN } });
    expect([refused.code, json(refused).details]).toEqual([
      4,
      { flag: "--allow-env=WEB_KEY", flags: ["--allow-env=WEB_KEY"] },
    ]);
    expect(seen).toEqual([]);
    const r = await run(["call", "web__hello", "{}", ...grant, "--allow-env=WEB_KEY"], {
      cwd: dir.path,
      env: { WEB_KEY: TOKEN },
    });
    expect([r.code, json(r).status]).toEqual([0, "success"]);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s.url === `http://${hostPort}/mcp?key=${TOKEN}` && s.key === `k-${TOKEN}`)).toBe(true);
    const log = await run(["log", "--json"], { cwd: dir.path });
    expect(r.stdout + r.stderr + log.stdout).not.toContain(TOKEN);
  });
});
