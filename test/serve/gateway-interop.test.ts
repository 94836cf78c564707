// serve relaying server-everything (a real server from npm) to clients nobody here wrote: the SDK's
// Client sees the same resources, templates, prompts and completions as when it talks to the server
// itself (prompts under everything__), and the MCP Inspector's CLI and mcporter list and read
// resources and get prompts through toolgate.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, ROOT, tempDir } from "../helpers.ts";
import { serve } from "./client.ts";

const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const NODE = Bun.which("node") ?? "/usr/bin/node";
const INSPECTOR = join(
  ROOT,
  "node_modules",
  "@modelcontextprotocol",
  "inspector",
  "clients",
  "launcher",
  "build",
  "index.js",
);
const MCPORTER = join(ROOT, "node_modules", "mcporter", "dist", "cli.js");
const TEXT_1 = "demo://resource/dynamic/text/1";

function site(root: string): { ws: string; home: string; config: string; env: Record<string, string> } {
  const ws = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(ws);
  mkdirSync(home);
  const config = join(home, "toolgate.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: { command: NODE, args: [EVERYTHING, "stdio"] } } }));
  const env = {
    PATH: "/usr/bin:/bin",
    HOME: home,
    XDG_STATE_HOME: join(home, "state"),
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_CACHE_HOME: join(home, "cache"),
    XDG_DATA_HOME: join(home, "data"),
    MCP_INSPECTOR_SECRET_STORE: "memory",
    NO_COLOR: "1",
  };
  return { ws, home, config, env };
}

/** A client CLI under Bun: stdout parsed as JSON, or the failure with its stderr. */
async function cli(script: string, args: readonly string[], s: ReturnType<typeof site>): Promise<unknown> {
  const proc = Bun.spawn([process.execPath, script, ...args], {
    cwd: s.ws,
    env: s.env,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`${script} exited ${code}: ${err}${out}`);
  return JSON.parse(out);
}

describe("server-everything behind serve", () => {
  test("the SDK Client gets what the server itself answers: resources, templates, a read, prompts, a get, a completion", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const direct = new Client({ name: "direct", version: "1.0.0" });
    await direct.connect(new StdioClientTransport({ command: NODE, args: [EVERYTHING, "stdio"], stderr: "ignore" }));
    await using served = await serve(["--config", s.config, "--allow-run"], { cwd: s.ws, home: s.home });
    const via = served.client;
    try {
      expect(via.getServerCapabilities()).toMatchObject({
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        completions: {},
        logging: {},
      });
      expect((await via.listResources()).resources).toEqual((await direct.listResources()).resources);
      expect((await via.listResourceTemplates()).resourceTemplates).toEqual(
        (await direct.listResourceTemplates()).resourceTemplates,
      );
      // The dynamic resource carries its creation time: compare its shape and its stable part.
      const [a, b] = [await via.readResource({ uri: TEXT_1 }), await direct.readResource({ uri: TEXT_1 })];
      const stable = (r: typeof a) =>
        r.contents.map((c) => ({ ...c, text: String((c as { text?: string }).text).replace(/created at .*$/, "") }));
      expect(stable(a)).toEqual(stable(b));
      const prompts = (await direct.listPrompts()).prompts;
      expect((await via.listPrompts()).prompts).toEqual(prompts.map((p) => ({ ...p, name: `everything__${p.name}` })));
      expect(await via.getPrompt({ name: "everything__args-prompt", arguments: { city: "Paris" } })).toEqual(
        await direct.getPrompt({ name: "args-prompt", arguments: { city: "Paris" } }),
      );
      const ask = { argument: { name: "department", value: "E" } };
      expect(
        await via.complete({ ref: { type: "ref/prompt", name: "everything__completable-prompt" }, ...ask }),
      ).toEqual(await direct.complete({ ref: { type: "ref/prompt", name: "completable-prompt" }, ...ask }));
    } finally {
      await direct.close();
    }
  }, 60_000);

  test("the MCP Inspector's CLI lists and reads resources and gets a prompt through toolgate", async () => {
    await using root = tempDir();
    const s = site(root.path);
    // The Inspector takes --config as its own: the config comes through the server's environment.
    const target = [
      "--cli",
      "--format",
      "json",
      "-e",
      `TOOLGATE_CONFIG=${s.config}`,
      "-e",
      `HOME=${s.home}`,
      "-e",
      `XDG_STATE_HOME=${join(s.home, "state")}`,
      BIN,
      "serve",
      "--allow-run",
    ];
    // --format json wraps the server's answer as {"result": ...}.
    const inspect = async (args: string[]) =>
      ((await cli(INSPECTOR, [...target, ...args], s)) as { result: unknown }).result;
    const listed = (await inspect(["--method", "resources/list"])) as { resources: { uri: string }[] };
    expect(listed.resources.map((r) => r.uri)).toContain("demo://resource/static/document/architecture.md");
    const read = (await inspect(["--method", "resources/read", "--uri", TEXT_1])) as {
      contents: { uri: string; text: string }[];
    };
    expect(read.contents.map((c) => [c.uri, c.text.startsWith("Resource 1: This is a plaintext resource")])).toEqual([
      [TEXT_1, true],
    ]);
    const got = (await inspect(["--method", "prompts/get", "--prompt-name", "everything__simple-prompt"])) as {
      messages: unknown[];
    };
    expect(got.messages).toEqual([
      { role: "user", content: { type: "text", text: "This is a simple prompt without arguments." } },
    ]);
  }, 60_000);

  test("mcporter lists and reads resources through toolgate", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const mc = join(s.home, "mcporter.json");
    writeFileSync(
      mc,
      JSON.stringify({
        mcpServers: { toolgate: { command: BIN, args: ["serve", "--config", s.config, "--allow-run"] } },
      }),
    );
    const listed = (await cli(MCPORTER, ["--config", mc, "resource", "toolgate", "--json"], s)) as {
      resources: { uri: string }[];
    };
    expect(listed.resources.map((r) => r.uri)).toContain("demo://resource/static/document/architecture.md");
    const read = (await cli(MCPORTER, ["--config", mc, "resource", "toolgate", TEXT_1, "--json"], s)) as {
      contents: { uri: string; mimeType: string }[];
    };
    expect(read.contents.map((c) => [c.uri, c.mimeType])).toEqual([[TEXT_1, "text/plain"]]);
  }, 60_000);
});
