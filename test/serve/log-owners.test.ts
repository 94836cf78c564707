// End to end: whose log lines a client of `dist/toolgate serve --http` sees. Two SDK clients, each
// with a log level set, use one upstream server (test/fixtures/mcp/logging.ts) that logs from
// inside every request it answers, naming what it was asked. A line sent while answering one
// client reaches that client, before its answer, and no other; a line sent while requests of both
// clients are in flight on the one upstream connection, with nothing tying it to one of them, is
// dropped (and counted on stderr), never broadcast. Over HTTP the upstream's answer stream ties
// each line to its request. Whether a client saw another's line is read after a resource update
// both are subscribed to, sent by the upstream after the lines, on the stream a broadcast takes.
import { describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../helpers.ts";
import { connect, serveHttp } from "./http-client.ts";

const FIXTURE = join(ROOT, "test", "fixtures", "mcp", "logging.ts");
const MARKER = "doc://marker";

interface Watched {
  readonly client: Client & AsyncDisposable;
  /** The data of every log message this client got, in order. */
  readonly lines: string[];
  /** The URIs of every resources/updated this client got. */
  readonly updates: string[];
  /** Resolves once `ok()` holds after a notification (or at once); fails after 10 s naming `what`. */
  until(ok: () => boolean, what: string): Promise<void>;
}

/** An SDK client of `url` that records its log lines and resource updates, at level debug, subscribed to the marker. */
async function watched(url: string): Promise<Watched> {
  const client = await connect(url);
  const lines: string[] = [];
  const updates: string[] = [];
  let wake = () => {};
  client.setNotificationHandler(
    LoggingMessageNotificationSchema,
    (n) => void (lines.push(String(n.params.data)), wake()),
  );
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void (updates.push(n.params.uri), wake()));
  await client.setLoggingLevel("debug");
  await client.subscribeResource({ uri: MARKER });
  const until = (ok: () => boolean, what: string) =>
    new Promise<void>((res, rej) => {
      const timer = setTimeout(
        () => rej(new Error(`never ${what}; lines ${JSON.stringify(lines)}, updates ${JSON.stringify(updates)}`)),
        10_000,
      );
      wake = () => {
        if (!ok()) return;
        clearTimeout(timer);
        wake = () => {};
        res();
      };
      wake();
    });
  return { client, lines, updates, until };
}

/**
 * Every client's broadcast stream is open: the upstream says the marker changed (through `by`'s
 * `touch`) until each has heard it. The SDK client opens that stream on its own after initialize.
 */
async function streamsOpen(by: Watched, all: readonly Watched[]): Promise<void> {
  for (let i = 0; i < 200 && all.some((w) => w.updates.length === 0); i++)
    await by.client.callTool({ name: "docs__touch", arguments: { uri: MARKER } });
  for (const w of all) await w.until(() => w.updates.length > 0, "heard the marker change");
}

/** Everything sent to the clients before now has arrived: one more marker change, heard by each on the stream a broadcast takes. */
async function settled(by: Watched, all: readonly Watched[]): Promise<void> {
  const before = all.map((w) => w.updates.length);
  await by.client.callTool({ name: "docs__touch", arguments: { uri: MARKER } });
  await Promise.all(all.map((w, i) => w.until(() => w.updates.length > before[i]!, "heard the last marker change")));
}

/** A workspace whose config names the fixture as `docs`: a stdio child, or the server at `url`. */
function site(root: string, url?: string): { ws: string; home: string; config: string } {
  const ws = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(ws, { recursive: true });
  mkdirSync(home, { recursive: true });
  const config = join(home, "toolgate.json");
  writeFileSync(
    config,
    JSON.stringify({
      mcpServers: { docs: url ? { type: "http", url } : { command: process.execPath, args: [FIXTURE] } },
    }),
  );
  return { ws, home, config };
}

/** The fixture over Streamable HTTP on loopback, its URL read from its first line. */
async function fixtureHttp(): Promise<{ url: string; port: number } & AsyncDisposable> {
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
  return {
    url,
    port: Number(new URL(url).port),
    [Symbol.asyncDispose]: async () => void (proc.kill(), await proc.exited),
  };
}

const ASKED = (doc: string) => [
  `asked for private doc ${doc} (resources/read)`,
  `asked for private doc ${doc} (prompts/get)`,
  `asked for private doc ${doc} (completion/complete)`,
  `asked for private doc ${doc} (tools/call)`,
];

/** Reads, gets, completes and calls naming `doc`, one after another, each line seen by `w` by the time its answer is. */
async function askFor(w: Watched, doc: string): Promise<string[]> {
  const seen: string[] = [];
  const c = w.client;
  const steps: [string, () => Promise<unknown>][] = [
    ["resources/read", () => c.readResource({ uri: `doc://${doc}` })],
    ["prompts/get", () => c.getPrompt({ name: "docs__doc", arguments: { name: doc } })],
    [
      "completion/complete",
      () => c.complete({ ref: { type: "ref/prompt", name: "docs__doc" }, argument: { name: "name", value: doc } }),
    ],
    ["tools/call", () => c.callTool({ name: "docs__note", arguments: { doc } })],
  ];
  for (const [method, step] of steps) {
    await step();
    // On the request's own stream, before its answer: there by now.
    seen.push(...w.lines.filter((l) => l === `asked for private doc ${doc} (${method})`));
  }
  return seen;
}

describe("serve --http: a log line goes to the client whose request it came from", () => {
  test("reads, prompts, completions and calls: each client sees its own lines, before the answer, and never the other's", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serveHttp(["--no-token", "--config", s.config, "--allow-run", "--approve", "all"], {
      cwd: s.ws,
      home: s.home,
    });
    const a = await watched(served.url);
    const b = await watched(served.url);
    await using _a = a.client;
    await using _b = b.client;
    await streamsOpen(a, [a, b]);
    expect(await askFor(b, "b-secret")).toEqual(ASKED("b-secret"));
    expect(await askFor(a, "a-own")).toEqual(ASKED("a-own"));
    await settled(b, [a, b]);
    expect([a.lines, b.lines]).toEqual([ASKED("a-own"), ASKED("b-secret")]);
  }, 60_000);

  test("two calls in flight on one stdio upstream, one from each client: neither sees the other's line; the unclear lines are dropped and counted", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serveHttp(["--no-token", "--config", s.config, "--allow-run", "--approve", "all"], {
      cwd: s.ws,
      home: s.home,
    });
    const a = await watched(served.url);
    const b = await watched(served.url);
    await using _a = a.client;
    await using _b = b.client;
    await streamsOpen(a, [a, b]);
    // Each waits inside the server for the other, logs, waits until both logged, then answers.
    await Promise.all([
      a.client.callTool({ name: "docs__meet", arguments: { round: "1", who: "a" } }),
      b.client.callTool({ name: "docs__meet", arguments: { round: "1", who: "b" } }),
    ]);
    await settled(a, [a, b]);
    // Nothing on a stdio pipe says which request a line answers: both were sent while both calls were in flight.
    expect([a.lines, b.lines]).toEqual([[], []]);
    await served.said('toolgate: MCP server "docs": a log message was dropped');
    expect(served.stderr()).toContain("2 so far");
    expect(served.stderr()).not.toContain("meet a");
  }, 60_000);

  test("two calls in flight on one HTTP upstream: the upstream's answer stream ties each line to its call, so each client gets exactly its own", async () => {
    await using root = tempDir();
    await using upstream = await fixtureHttp();
    const s = site(root.path, upstream.url);
    await using served = await serveHttp(
      ["--no-token", "--config", s.config, `--allow-net=127.0.0.1:${upstream.port}`, "--approve", "all"],
      { cwd: s.ws, home: s.home },
    );
    const a = await watched(served.url);
    const b = await watched(served.url);
    await using _a = a.client;
    await using _b = b.client;
    await streamsOpen(a, [a, b]);
    const [ra, rb] = await Promise.all([
      a.client.callTool({ name: "docs__meet", arguments: { round: "1", who: "a" } }),
      b.client.callTool({ name: "docs__meet", arguments: { round: "1", who: "b" } }),
    ]);
    expect([ra.isError, rb.isError]).toEqual([undefined, undefined]);
    // Before each answer, on its own stream.
    expect([a.lines, b.lines]).toEqual([["meet a"], ["meet b"]]);
    await settled(a, [a, b]);
    expect([a.lines, b.lines]).toEqual([["meet a"], ["meet b"]]);
    expect(served.stderr()).not.toContain("was dropped");
  }, 60_000);
});
