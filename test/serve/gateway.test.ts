// serve as a complete, transparent gateway. The official conformance
// suite (server mode) runs against the fixture server directly (the reference) and through
// `toolgate serve --http --expose fixture` with the fixture as a stdio upstream: the same checks
// pass, with the same results, log lines and progress values, twice in a row. Without --expose,
// resources, prompts and completions are relayed from every server, named apart, routed back, and
// checked by the output boundary like a tool result.
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, run, tempDir } from "../helpers.ts";
import { serve } from "./client.ts";
import { connect, serveHttp } from "./http-client.ts";
import { waitFor } from "../support/wait.ts";

const CONFORMANCE = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const FIXTURE = join(ROOT, "test", "fixtures", "mcp", "conformance-server.ts");

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
  details?: unknown;
}

/** Runs the suite in server mode against `url`: scenario → its checks. */
async function suite(url: string, dir: string, home: string): Promise<Record<string, Check[]>> {
  const proc = Bun.spawn([process.execPath, CONFORMANCE, "server", "--url", url, "--suite", "all", "-o", dir], {
    env: { PATH: "/usr/bin:/bin", HOME: home },
    stdout: "pipe",
    stderr: "pipe",
  });
  await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const out: Record<string, Check[]> = {};
  for (const d of readdirSync(dir))
    out[d.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "")] = JSON.parse(
      readFileSync(join(dir, d, "checks.json"), "utf8"),
    );
  return out;
}

/** What a check says about the server, without what differs between any two runs (times, ids, addresses, toolgate's own _meta). */
function comparable(checks: Record<string, Check[]>): Record<string, unknown> {
  const strip = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(strip)
      : v !== null && typeof v === "object"
        ? Object.fromEntries(
            Object.entries(v)
              .filter(
                ([k]) => !["_meta", "timestamp", "sessionId", "url", "serverUrl", "eventId", "lastEventId"].includes(k),
              )
              .map(([k, x]) => [k, strip(x)]),
          )
        : v;
  // The SSE scenarios' INFO lines narrate the stream (toolgate's events carry ids, the fixture's do not): their verdicts are compared.
  const kept = (s: string, cs: Check[]) => (s.startsWith("server-sse") ? cs.filter((c) => c.status !== "INFO") : cs);
  return Object.fromEntries(
    Object.entries(checks).map(([s, cs]) => [
      s,
      kept(s, cs).map((c) => ({
        id: c.id,
        status: c.status,
        error: c.errorMessage ?? null,
        details: s.startsWith("dns-") || s.startsWith("server-sse") ? null : strip(c.details),
      })),
    ]),
  );
}

/** The fixture over Streamable HTTP on loopback, its URL read from its first line. */
async function fixtureHttp(): Promise<{ url: string } & AsyncDisposable> {
  const proc = Bun.spawn([process.execPath, FIXTURE, "--http"], { stdout: "pipe", stderr: "ignore" });
  const reader = proc.stdout.getReader();
  let text = "";
  for (let i = 0; i < 100 && !text.includes("\n"); i++) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  const url = /^URL (\S+)/.exec(text)?.[1];
  if (!url) throw new Error(`the fixture did not start: ${text}`);
  return { url, [Symbol.asyncDispose]: async () => void (proc.kill(), await proc.exited) };
}

/** A workspace with a config (the user's own, --config) naming the fixture under `names`. */
function site(
  root: string,
  servers: Record<string, Record<string, string>>,
): { ws: string; home: string; config: string } {
  const ws = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(ws, { recursive: true });
  mkdirSync(home, { recursive: true });
  const config = join(home, "toolgate.json");
  const mcpServers = Object.fromEntries(
    Object.entries(servers).map(([name, env]) => [name, { command: process.execPath, args: [FIXTURE], env }]),
  );
  writeFileSync(config, JSON.stringify({ mcpServers }));
  return { ws, home, config };
}

describe("the conformance suite through serve --expose", () => {
  test("passes check for check as against the server itself, results, log lines and progress included, twice in a row", async () => {
    await using root = tempDir();
    await using direct = await fixtureHttp();
    const reference = await suite(direct.url, join(root.path, "direct"), root.path);
    // The reference: an SDK server passes every scenario the suite has.
    expect(
      Object.entries(reference)
        .filter(([, cs]) => cs.some((c) => c.status === "FAILURE"))
        .map(([s]) => s),
    ).toEqual([]);

    const s = site(root.path, { fixture: {} });
    await using served = await serveHttp(
      ["--no-token", "--config", s.config, "--expose", "fixture", "--allow-run", "--approve", "all"],
      { cwd: s.ws, home: s.home },
    );
    const first = await suite(served.url, join(root.path, "first"), root.path);
    expect(comparable(first)).toEqual(comparable(reference));
    // Nothing is used up: a second run right after passes the same.
    const second = await suite(served.url, join(root.path, "second"), root.path);
    expect(comparable(second)).toEqual(comparable(reference));
    // The values themselves, not only their count: progress 0, 50, 100 and the three log lines in order.
    expect(
      (first["tools-call-with-progress"]![0]!.details as { progressNotifications: unknown }).progressNotifications,
    ).toEqual([
      { progress: 0, total: 100 },
      { progress: 50, total: 100 },
      { progress: 100, total: 100 },
    ]);
    expect(
      (first["tools-call-with-logging"]![0]!.details as { logs: { data: string }[] }).logs.map((l) => l.data),
    ).toEqual(["Tool execution started", "Tool processing data", "Tool execution completed"]);
    expect(await served.stop()).toBe(0);
  }, 240_000);
});

describe("resources, prompts and completions relayed from upstream servers", () => {
  test("listed with SERVER__ prompts and namespaced URIs where two servers collide; reads, gets and completions routed back; each journaled", async () => {
    await using root = tempDir();
    const s = site(root.path, { alpha: {}, beta: {} });
    await using served = await serve(["--config", s.config, "--allow-run"], { cwd: s.ws, home: s.home });
    const c = served.client;
    expect(c.getServerCapabilities()).toMatchObject({
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      completions: {},
    });
    const { resources } = await c.listResources();
    // Both servers list the same URIs: each is namespaced, reversibly.
    const uris = resources.map((r) => r.uri).sort();
    expect(uris).toHaveLength(6);
    expect(uris.every((u) => u.startsWith("toolgate://resource/"))).toBe(true);
    const betaText = resources.find(
      (r) => r.uri.includes("beta") && r.uri.endsWith(encodeURIComponent("test://static-text")),
    )!.uri;
    expect(await c.readResource({ uri: betaText })).toEqual({
      contents: [{ uri: betaText, mimeType: "text/plain", text: "This is the content of the static text resource." }],
    });
    // A template's expansion goes to the first server that lists the template (alpha), templates not listed yet.
    expect((await c.readResource({ uri: "test://template/7/data" })).contents).toEqual([
      {
        uri: "test://template/7/data",
        mimeType: "application/json",
        text: JSON.stringify({ id: "7", templateTest: true, data: "Data for ID: 7" }),
      },
    ]);
    const { resourceTemplates } = await c.listResourceTemplates();
    expect(resourceTemplates.map((x) => x.uriTemplate)).toEqual([
      "test://template/{id}/data",
      "test://template/{id}/data",
    ]);
    const unknown = await c
      .readResource({ uri: "test://nowhere" })
      .catch((e: Error & { code?: number }) => [e.code, e.message]);
    expect(unknown).toEqual([
      -32002,
      'MCP error -32002: no resource "test://nowhere"; resources/list and resources/templates/list list them',
    ]);

    const { prompts } = await c.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual([
      "alpha__test_prompt_with_arguments",
      "alpha__test_prompt_with_embedded_resource",
      "alpha__test_prompt_with_image",
      "alpha__test_simple_prompt",
      "beta__test_prompt_with_arguments",
      "beta__test_prompt_with_embedded_resource",
      "beta__test_prompt_with_image",
      "beta__test_simple_prompt",
    ]);
    expect(
      await c.getPrompt({ name: "beta__test_prompt_with_arguments", arguments: { arg1: "hello", arg2: "world" } }),
    ).toEqual({
      messages: [
        { role: "user", content: { type: "text", text: "Prompt with arguments: arg1='hello', arg2='world'" } },
      ],
    });
    const done = await c.complete({
      ref: { type: "ref/prompt", name: "alpha__test_prompt_with_arguments" },
      argument: { name: "arg1", value: "par" },
    });
    expect(done.completion.values).toEqual(["paris", "park", "party"]);
    const missing = await c.getPrompt({ name: "gamma__test_simple_prompt" }).catch((e: Error) => e.message);
    expect(missing).toContain('no prompt named "gamma__test_simple_prompt"');
    await served.close();

    const log = await run(["log", "--json", "--last", "50", "--config", s.config], {
      cwd: s.ws,
      env: { PATH: "/usr/bin:/bin", HOME: s.home, XDG_STATE_HOME: join(s.home, "state") },
    });
    expect([log.code, log.stderr]).toEqual([0, ""]);
    const rows = log.stdout
      .trim()
      .split("\n")
      .map((l: string) => JSON.parse(l) as { tool: string; origin: string; effect: string; status: string });
    const relayed = rows.filter((r) => r.tool === "resources/read" || r.tool === "prompts/get");
    // The unknown prompt and resource reached no server: no row.
    expect(relayed.map((r) => [r.tool, r.origin, r.effect, r.status])).toEqual([
      ["resources/read", "mcp:beta", "read", "success"],
      ["resources/read", "mcp:alpha", "read", "success"],
      ["prompts/get", "mcp:beta", "read", "success"],
    ]);
  }, 60_000);
});

describe("the relay's guards", () => {
  test("a resource text with a local path and a prompt carrying a private key are withheld; the value is in no view", async () => {
    await using root = tempDir();
    const s = site(root.path, { leaky: { LEAK: "1" } });
    await using served = await serve(["--config", s.config, "--allow-run"], { cwd: s.ws, home: s.home });
    const c = served.client;
    const read = await c
      .readResource({ uri: "test://leaky" })
      .catch((e: Error & { code?: number; data?: unknown }) => [e.code, e.message, e.data]);
    expect(read).toEqual([
      -32603,
      "MCP error -32603: sensitive_output_rejected: the server's answer was withheld by the output boundary; `toolgate log` says which rule fired, never the value",
      { error_code: "sensitive_output_rejected" },
    ]);
    const got = await c.getPrompt({ name: "leaky__leaky_prompt" }).catch((e: Error & { data?: unknown }) => e.data);
    expect(got).toEqual({ error_code: "sensitive_output_rejected" });
    // The same server's ordinary resource still reads.
    expect((await c.readResource({ uri: "test://static-text" })).contents).toHaveLength(1);
    await served.close();
    const log = await run(["log", "--json", "--last", "50", "--config", s.config], {
      cwd: s.ws,
      env: { HOME: s.home, XDG_STATE_HOME: join(s.home, "state") },
    });
    const rows = log.stdout
      .trim()
      .split("\n")
      .map((l: string) => JSON.parse(l) as { tool: string; error_code: string | null; detail: string | null });
    expect(
      rows.filter((r) => r.error_code === "sensitive_output_rejected").map((r) => [r.tool, JSON.parse(r.detail!).rule]),
    ).toEqual([
      ["resources/read", "local_path"],
      ["prompts/get", "pem"],
    ]);
    for (const view of [log.stdout, served.stderr()]) {
      expect(view).not.toContain("/etc/fixture-secret");
      expect(view).not.toContain("b3BlbnNzaC1rZXktdjEAAAAA");
    }
  }, 60_000);

  test("--expose: the server's instructions pass the boundary like its results (a local path in them: withheld)", async () => {
    await using root = tempDir();
    const plain = site(join(root.path, "plain"), { fixture: {} });
    await using ok = await serve(["--config", plain.config, "--allow-run", "--expose", "fixture"], {
      cwd: plain.ws,
      home: plain.home,
    });
    expect(ok.client.getInstructions()).toBe(
      "The conformance fixture: every tool, resource and prompt the suite asks for.",
    );
    await ok.close();
    const s = site(join(root.path, "leaky"), { fixture: { LEAK: "1" } });
    await using served = await serve(["--config", s.config, "--allow-run", "--expose", "fixture"], {
      cwd: s.ws,
      home: s.home,
    });
    expect(served.client.getInstructions()).not.toContain("/etc/fixture-secret");
    await served.close();
    expect(served.stderr()).toContain('MCP server "fixture": the instructions withheld (rule local_path');
    expect(served.stderr()).not.toContain("/etc/fixture-secret");
  }, 60_000);

  test("without the server's start granted nothing is relayed and nothing starts", async () => {
    await using root = tempDir();
    const s = site(root.path, { fixture: {} });
    await using served = await serve(["--config", s.config], { cwd: s.ws, home: s.home });
    expect(served.client.getServerCapabilities()).toEqual({ tools: { listChanged: true }, logging: {} });
    const list = await served.client.listResources().catch((e: Error) => e.message);
    expect(list).toBe("MCP error -32601: Method not found");
    await served.close();
    const log = await run(["log", "--json", "--last", "50", "--config", s.config], {
      cwd: s.ws,
      env: { HOME: s.home, XDG_STATE_HOME: join(s.home, "state") },
    });
    const events = log.stdout
      .trim()
      .split("\n")
      .filter((l: string) => l !== "")
      .map((l: string) => (JSON.parse(l) as { event: string }).event);
    expect(events.filter((e: string) => e === "server_started")).toEqual([]);
  }, 60_000);

  test("an update of a subscribed resource goes to the client that subscribed, not to another", async () => {
    await using root = tempDir();
    // LEAK: the fixture's update carries a local path beside the URI; only the URI may come through.
    const s = site(root.path, { fixture: { LEAK: "1" } });
    await using served = await serveHttp(["--no-token", "--config", s.config, "--allow-run"], {
      cwd: s.ws,
      home: s.home,
    });
    await using a = await connect(served.url);
    await using b = await connect(served.url);
    const seen: Record<string, string[]> = { a: [], b: [] };
    const { ResourceUpdatedNotificationSchema } = await import("@modelcontextprotocol/sdk/types.js");
    a.setNotificationHandler(
      ResourceUpdatedNotificationSchema,
      (n) =>
        void seen.a!.push(
          JSON.stringify(n.params) === JSON.stringify({ uri: n.params.uri }) ? n.params.uri : JSON.stringify(n.params),
        ),
    );
    b.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void seen.b!.push(n.params.uri));
    await b.listResources();
    expect(await a.subscribeResource({ uri: "test://watched-resource" })).toEqual({});
    // The fixture sends one update 20 ms after a subscribe; b's ping after it has arrived shows b got none.
    await waitFor("a's update", () => seen.a!.length > 0);
    await b.ping();
    expect(seen).toEqual({ a: ["test://watched-resource"], b: [] });
    expect(await a.unsubscribeResource({ uri: "test://watched-resource" })).toEqual({});
    expect(await served.stop()).toBe(0);
  }, 60_000);
});
