// serve relaying resources and prompts from several upstream servers as a team's tools use it: a
// fresh client for every request (one process per command), against `dist/toolgate serve --http`.
// The servers: server-everything (npm) and test/fixtures/mcp/apps.ts, which offers only what it
// has as the Python SDK's low-level servers do (no resources/templates/list: -32601), once as
// `apps` and once as `bare`, which lists no resources and no prompts, only a template.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../helpers.ts";
import { NOTE_TEMPLATE, NOTE_TEXT, NOTE_URI } from "../fixtures/mcp/apps.ts";
import { connect, serveHttp } from "./http-client.ts";

const EVERYTHING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const APPS = join(ROOT, "test", "fixtures", "mcp", "apps.ts");
const NODE = Bun.which("node") ?? "/usr/bin/node";
const EVERYTHING_DOC = "demo://resource/static/document/architecture.md";
const EVERYTHING_TEXT_2 = "demo://resource/dynamic/text/2";

type Servers = Record<string, { command: string; args: string[] }>;
const everything = { command: NODE, args: [EVERYTHING, "stdio"] };
const apps = (...lacks: string[]) => ({ command: process.execPath, args: [APPS, ...(lacks.length > 0 ? [`--lacks=${lacks.join(",")}`] : [])] });
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
    await using served = await serveHttp(["--no-token", "--config", s.config, "--allow-run"], { cwd: s.ws, home: s.home });
    const own = await direct(async (c) => ({ templates: (await c.listResourceTemplates()).resourceTemplates, prompts: (await c.listPrompts()).prompts, resources: (await c.listResources()).resources }));

    // In the servers' order (apps, bare, everything). apps has no resources/templates/list.
    const templates = await fresh(served.url, async (c) => (await c.listResourceTemplates()).resourceTemplates);
    expect(templates).toEqual([{ uriTemplate: NOTE_TEMPLATE, name: "note" }, ...own.templates]);
    // bare has no resources/list and no prompts/list.
    const resources = await fresh(served.url, async (c) => (await c.listResources()).resources);
    expect(resources.map((r) => r.uri)).toEqual([NOTE_URI, "ui://board/app.html", "ui://board/leaky.html", "ui://board/keyed.html", "ui://board/notes.txt", ...own.resources.map((r) => r.uri)]);
    const prompts = await fresh(served.url, async (c) => (await c.listPrompts()).prompts);
    expect(prompts.map((p) => p.name)).toEqual(["apps__summary", ...own.prompts.map((p) => `everything__${p.name}`)]);

    // A template's expansion reads, and the template completes, each from a client of its own.
    const read = await fresh(served.url, (c) => c.readResource({ uri: EVERYTHING_TEXT_2 }));
    expect(read.contents.map((c) => [c.uri, String((c as { text?: string }).text).startsWith("Resource 2: This is a plaintext resource")])).toEqual([[EVERYTHING_TEXT_2, true]]);
    const ref = { type: "ref/resource" as const, uri: own.templates[0]!.uriTemplate };
    const completed = await fresh(served.url, (c) => c.complete({ ref, argument: { name: "index", value: "1" } }));
    expect(completed).toEqual(await direct((c) => c.complete({ ref, argument: { name: "index", value: "1" } })));
    expect(await served.stop()).toBe(0);
  }, 60_000);
});
