// serve relaying resources and prompts from several upstream servers as a team's tools use it: a
// fresh client for every request (one process per command, as the MCP Inspector's CLI and
// mcporter run), against `dist/toolgate serve --http`. The servers: server-everything (npm) and
// test/fixtures/mcp/apps.ts, which offers only what it has as the Python SDK's low-level servers
// do (no resources/templates/list: -32601), once as `apps` and once as `bare`, which lists no
// resources and no prompts, only a template. A read may be a client's first request, before any
// list; a server that lacks a list method adds nothing to that merged list.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  type ClientCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, ROOT, tempDir } from "../helpers.ts";
import {
  APP_MIME,
  APP_URI,
  appHtml,
  BIG_TEXT_URI,
  KEYED_APP_URI,
  LEAKY_APP_URI,
  NOTE_TEMPLATE,
  NOTE_TEXT,
  NOTE_URI,
} from "../fixtures/mcp/apps.ts";
import { alive, connect, descendantsOf, serveHttp } from "./http-client.ts";

const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const APPS = join(ROOT, "test", "fixtures", "mcp", "apps.ts");
const NODE = Bun.which("node") ?? "/usr/bin/node";
const EVERYTHING_DOC = "demo://resource/static/document/architecture.md";
const EVERYTHING_TEXT_2 = "demo://resource/dynamic/text/2";

type Servers = Record<string, { command: string; args: string[] }>;
const everything = { command: NODE, args: [EVERYTHING, "stdio"] };
const apps = (...lacks: string[]) => ({
  command: process.execPath,
  args: [APPS, ...(lacks.length > 0 ? [`--lacks=${lacks.join(",")}`] : [])],
});
const THREE: Servers = { everything, apps: apps(), bare: apps("resources/list", "prompts/list") };

/** A workspace and a HOME beside it, with a config naming `servers`. */
function site(root: string, servers: Servers): { ws: string; home: string; config: string } {
  const ws = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(ws, { recursive: true });
  mkdirSync(home, { recursive: true });
  const config = join(home, "toolgate.json");
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  return { ws, home, config };
}

/** Runs `ask` on a client that connects for it alone and leaves after. */
async function fresh<T>(url: string, ask: (c: Client) => Promise<T>): Promise<T> {
  await using c = await connect(url);
  return await ask(c);
}

/** What server-everything itself answers `ask`. */
async function direct<T>(ask: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ name: "direct", version: "1.0.0" });
  await c.connect(new StdioClientTransport({ command: NODE, args: [EVERYTHING, "stdio"], stderr: "ignore" }));
  try {
    return await ask(c);
  } finally {
    await c.close();
  }
}

const failure = (e: Error & { code?: number; data?: unknown }) => ({ code: e.code, message: e.message, data: e.data });

describe("a server that lacks a list method", () => {
  test("adds nothing to that merged list: the other servers' resources, templates and prompts are served, and their templates read and complete", async () => {
    await using root = tempDir();
    const s = site(root.path, THREE);
    await using served = await serveHttp(["--no-token", "--config", s.config, "--allow-run"], {
      cwd: s.ws,
      home: s.home,
    });
    const own = await direct(async (c) => ({
      templates: (await c.listResourceTemplates()).resourceTemplates,
      prompts: (await c.listPrompts()).prompts,
      resources: (await c.listResources()).resources,
    }));

    // In the servers' order (apps, bare, everything). apps has no resources/templates/list.
    const templates = await fresh(served.url, async (c) => (await c.listResourceTemplates()).resourceTemplates);
    expect(templates).toEqual([{ uriTemplate: NOTE_TEMPLATE, name: "note" }, ...own.templates]);
    // bare has no resources/list and no prompts/list.
    const resources = await fresh(served.url, async (c) => (await c.listResources()).resources);
    expect(resources.map((r) => r.uri)).toEqual([
      NOTE_URI,
      "ui://board/app.html",
      "ui://board/leaky.html",
      "ui://board/keyed.html",
      "ui://board/notes.txt",
      ...own.resources.map((r) => r.uri),
    ]);
    const prompts = await fresh(served.url, async (c) => (await c.listPrompts()).prompts);
    expect(prompts.map((p) => p.name)).toEqual(["apps__summary", ...own.prompts.map((p) => `everything__${p.name}`)]);

    // A template's expansion reads, and the template completes, each from a client of its own.
    const read = await fresh(served.url, (c) => c.readResource({ uri: EVERYTHING_TEXT_2 }));
    expect(
      read.contents.map((c) => [
        c.uri,
        String((c as { text?: string }).text).startsWith("Resource 2: This is a plaintext resource"),
      ]),
    ).toEqual([[EVERYTHING_TEXT_2, true]]);
    const ref = { type: "ref/resource" as const, uri: own.templates[0]!.uriTemplate };
    const completed = await fresh(served.url, (c) => c.complete({ ref, argument: { name: "index", value: "1" } }));
    expect(completed).toEqual(await direct((c) => c.complete({ ref, argument: { name: "index", value: "1" } })));
    expect(await served.stop()).toBe(0);
  }, 60_000);
});

/** A client CLI (under Bun), one process per command: stdout parsed as JSON, or the failure with its stderr. */
async function cli(script: string, args: readonly string[], s: ReturnType<typeof site>): Promise<unknown> {
  const env = {
    PATH: "/usr/bin:/bin",
    HOME: s.home,
    XDG_CONFIG_HOME: join(s.home, "config"),
    XDG_CACHE_HOME: join(s.home, "cache"),
    XDG_DATA_HOME: join(s.home, "data"),
    MCP_INSPECTOR_SECRET_STORE: "memory",
    NO_COLOR: "1",
  };
  const proc = Bun.spawn([process.execPath, script, ...args], {
    cwd: s.ws,
    env,
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

describe("a client's first request", () => {
  test("reads a URI no list has named yet, whichever server has it: listed by a server without templates, listed, a template's expansion (of a server that lists none); gets a prompt", async () => {
    await using root = tempDir();
    const s = site(root.path, THREE);
    await using served = await serveHttp(["--no-token", "--config", s.config, "--allow-run"], {
      cwd: s.ws,
      home: s.home,
    });
    // No client has listed anything: each read is its client's only request.
    expect((await fresh(served.url, (c) => c.readResource({ uri: NOTE_URI }))).contents).toEqual([
      { uri: NOTE_URI, mimeType: "text/plain", text: NOTE_TEXT },
    ]);
    const doc = await fresh(served.url, (c) => c.readResource({ uri: EVERYTHING_DOC }));
    expect(doc).toEqual(await direct((c) => c.readResource({ uri: EVERYTHING_DOC })));
    // bare lists no resources, only the note template; apps lists memo://notes/first but no template.
    expect((await fresh(served.url, (c) => c.readResource({ uri: "memo://notes/second" }))).contents).toEqual([
      { uri: "memo://notes/second", mimeType: "text/plain", text: "the note second" },
    ]);
    const text = await fresh(served.url, (c) => c.readResource({ uri: EVERYTHING_TEXT_2 }));
    expect(text.contents.map((c) => c.uri)).toEqual([EVERYTHING_TEXT_2]);
    expect(await fresh(served.url, (c) => c.getPrompt({ name: "apps__summary" }))).toEqual({
      messages: [{ role: "user", content: { type: "text", text: "Summarize the notes." } }],
    });
    // A URI nobody lists or templates is still unknown, after the servers were asked.
    expect(await fresh(served.url, (c) => c.readResource({ uri: "demo://nowhere" }).catch(failure))).toMatchObject({
      code: -32002,
      message: 'MCP error -32002: no resource "demo://nowhere"; resources/list and resources/templates/list list them',
    });
    expect(await served.stop()).toBe(0);
  }, 60_000);

  test("a URI two servers list is read only as the namespaced form the client names, never by guessing", async () => {
    await using root = tempDir();
    const s = site(root.path, { apps: apps(), twin: apps() });
    await using served = await serveHttp(["--no-token", "--config", s.config, "--allow-run"], {
      cwd: s.ws,
      home: s.home,
    });
    const [ofApps, ofTwin] = ["apps", "twin"].map(
      (server) => `toolgate://resource/${server}/${encodeURIComponent(NOTE_URI)}`,
    ) as [string, string];
    expect(await fresh(served.url, (c) => c.readResource({ uri: NOTE_URI }).catch(failure))).toMatchObject({
      code: -32002,
      message: `MCP error -32002: no resource "${NOTE_URI}" of one server: 2 servers list it; read it as "${ofApps}" or "${ofTwin}"`,
    });
    expect((await fresh(served.url, (c) => c.readResource({ uri: ofTwin }))).contents).toEqual([
      { uri: ofTwin, mimeType: "text/plain", text: NOTE_TEXT },
    ]);
    // Neither lists it nor has a template for it (the twins have no resources/templates/list): not sent to either.
    expect(await fresh(served.url, (c) => c.readResource({ uri: "memo://notes/second" }).catch(failure))).toMatchObject(
      { code: -32002 },
    );
    expect(await served.stop()).toBe(0);
  }, 60_000);

  test("the MCP Inspector's CLI and mcporter, one process per command, read from any server as their first request (over HTTP, and over stdio a serve per command)", async () => {
    await using root = tempDir();
    const s = site(root.path, THREE);
    await using served = await serveHttp(["--no-token", "--config", s.config, "--allow-run"], {
      cwd: s.ws,
      home: s.home,
    });
    // --format json wraps the server's answer as {"result": ...}.
    const inspect = async (args: string[]) =>
      (
        (await cli(INSPECTOR, ["--cli", "--format", "json", served.url, "--transport", "http", ...args], s)) as {
          result: any;
        }
      ).result;
    expect((await inspect(["--method", "resources/read", "--uri", NOTE_URI])).contents).toEqual([
      { uri: NOTE_URI, mimeType: "text/plain", text: NOTE_TEXT },
    ]);
    expect(
      (await inspect(["--method", "resources/read", "--uri", EVERYTHING_TEXT_2])).contents.map(
        (c: { uri: string }) => c.uri,
      ),
    ).toEqual([EVERYTHING_TEXT_2]);
    // Over stdio each command starts a serve of its own: its read is that serve's first request.
    const stdio = [
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
    const viaStdio = (await cli(INSPECTOR, [...stdio, "--method", "resources/read", "--uri", EVERYTHING_DOC], s)) as {
      result: { contents: { uri: string }[] };
    };
    expect(viaStdio.result.contents.map((c) => c.uri)).toEqual([EVERYTHING_DOC]);
    const mc = join(s.home, "mcporter.json");
    writeFileSync(mc, JSON.stringify({ mcpServers: { toolgate: { url: served.url } } }));
    const read = (await cli(MCPORTER, ["--config", mc, "resource", "toolgate", "memo://notes/third", "--json"], s)) as {
      contents: unknown[];
    };
    expect(read.contents).toEqual([{ uri: "memo://notes/third", mimeType: "text/plain", text: "the note third" }]);
    const doc = (await cli(MCPORTER, ["--config", mc, "resource", "toolgate", EVERYTHING_DOC, "--json"], s)) as {
      contents: { uri: string; mimeType: string }[];
    };
    expect(doc.contents.map((c) => [c.uri, c.mimeType])).toEqual([[EVERYTHING_DOC, "text/markdown"]]);
    expect(await served.stop()).toBe(0);
  }, 60_000);
});

describe("an MCP App's interface", () => {
  test("a ui:// HTML page of 723 K characters is relayed whole; one carrying a private key or a secret-named key is still withheld, as is a large ui:// text that is not HTML", async () => {
    await using root = tempDir();
    const s = site(root.path, { everything, apps: apps() });
    await using served = await serveHttp(["--no-token", "--config", s.config, "--allow-run"], {
      cwd: s.ws,
      home: s.home,
    });
    const page = await fresh(served.url, (c) => c.readResource({ uri: APP_URI }));
    expect(page).toEqual({
      contents: [{ uri: APP_URI, mimeType: APP_MIME, text: appHtml(), _meta: { ui: { prefersBorder: true } } }],
    });
    const withheld = { code: -32603, data: { error_code: "sensitive_output_rejected" } };
    for (const uri of [LEAKY_APP_URI, KEYED_APP_URI, BIG_TEXT_URI])
      expect(await fresh(served.url, (c) => c.readResource({ uri }).catch(failure))).toMatchObject(withheld);
    await served.said("rule size at $");
    expect(served.stderr()).toContain(
      "resources/read: the result was withheld (sensitive_output_rejected): rule pem at $.contents[0].text",
    );
    expect(served.stderr()).toContain("rule secret_key at $.contents[0]._meta.api_key");
    expect(served.stderr()).not.toContain("BEGIN");
    expect(await served.stop()).toBe(0);
  }, 60_000);
});

/** A client that declares `capabilities` (answering sampling with a fixed message, elicitation by declining) runs `ask` and leaves. */
async function declaring<T>(url: string, capabilities: ClientCapabilities, ask: (c: Client) => Promise<T>): Promise<T> {
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const c = new Client({ name: "declaring", version: "1.0.0" }, { capabilities });
  if (capabilities.sampling)
    c.setRequestHandler(CreateMessageRequestSchema, () => ({
      role: "assistant",
      model: "stub",
      content: { type: "text", text: "sampled by the client" },
    }));
  if (capabilities.elicitation) c.setRequestHandler(ElicitRequestSchema, () => ({ action: "decline" }));
  await c.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    return await ask(c);
  } finally {
    await c.close();
  }
}

/** What server-everything itself answers a client that declares `capabilities`. */
async function directly<T>(capabilities: ClientCapabilities, ask: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ name: "direct", version: "1.0.0" }, { capabilities });
  if (capabilities.sampling)
    c.setRequestHandler(CreateMessageRequestSchema, () => ({
      role: "assistant",
      model: "stub",
      content: { type: "text", text: "sampled by the client" },
    }));
  if (capabilities.elicitation) c.setRequestHandler(ElicitRequestSchema, () => ({ action: "decline" }));
  await c.connect(new StdioClientTransport({ command: NODE, args: [EVERYTHING, "stdio"], stderr: "ignore" }));
  try {
    return await ask(c);
  } finally {
    await c.close();
  }
}
const listedDirectly = (capabilities: ClientCapabilities) =>
  directly(capabilities, async (c) => (await c.listTools()).tools.map((t) => t.name));
const calledDirectly = (capabilities: ClientCapabilities, call: { name: string; arguments: Record<string, unknown> }) =>
  directly(capabilities, (c) => c.callTool(call));

describe("serve --expose", () => {
  test("the server is told what each client declared, no more: it lists each client the tools it lists that client directly, and a client's calls go to its own kind of connection", async () => {
    await using root = tempDir();
    const s = site(root.path, { everything, apps: apps() });
    await using served = await serveHttp(
      ["--no-token", "--config", s.config, "--expose", "everything", "--allow-run", "--approve", "all"],
      { cwd: s.ws, home: s.home },
    );
    const names = (caps: ClientCapabilities) =>
      declaring(served.url, caps, async (c) => (await c.listTools()).tools.map((t) => t.name));
    const kinds: ClientCapabilities[] = [
      {},
      { sampling: {} },
      { elicitation: { form: {} } },
      { sampling: {}, elicitation: { form: {} } },
    ];
    for (const caps of kinds)
      expect({ caps, tools: await names(caps) }).toEqual({ caps, tools: await listedDirectly(caps) });
    // What differs, by name: the sampling and elicitation tools only for a client that can take them.
    expect((await names({})).filter((n) => /sampling|elicitation/.test(n))).toEqual([]);
    expect((await names({ sampling: {} })).filter((n) => /sampling|elicitation/.test(n))).toEqual([
      "trigger-sampling-request",
    ]);
    // A client with sampling calls the tool and answers its sampling itself.
    const sampled = await declaring(served.url, { sampling: {} }, (c) =>
      c.callTool({ name: "trigger-sampling-request", arguments: { prompt: "hi" } }),
    );
    expect(JSON.stringify(sampled.content)).toContain("sampled by the client");
    // Its call of a tool the server lists only to a client with elicitation goes on its own kind
    // of connection, where the server does not have it: the server's own answer, as directly.
    const elicit = { name: "trigger-elicitation-request", arguments: {} };
    const via = await declaring(served.url, { sampling: {} }, (c) => c.callTool(elicit));
    expect({ ...via, _meta: undefined }).toEqual({
      ...(await calledDirectly({ sampling: {} }, elicit)),
      _meta: undefined,
    });
    // The shared connection and one of each kind that declared less (nothing, sampling, elicitation): all ended with serve.
    const children = descendantsOf(served.pid);
    expect(children.filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(EVERYTHING))).toHaveLength(4);
    expect(await served.stop()).toBe(0);
    expect(children.filter(alive)).toEqual([]);
  }, 90_000);
});
