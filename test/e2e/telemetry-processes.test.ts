// OpenTelemetry from the long-lived processes, end to end through dist/toolgate inside a
// loopback-only network namespace: `serve` continues each client's `_meta.traceparent`, a
// background task's supervisor exports its call under the caller's TRACEPARENT, a delegation
// task's child calls are spans nested under the task call's span, and a warm session exports a
// forwarded call under the client's TRACEPARENT.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { BIN, json, ROOT, run, tempDir } from "../helpers.ts";
import { inLoopbackNamespace } from "../http/netns.ts";
import { receiver } from "../telemetry/receiver.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE}-${PARENT}-01`;
const AGENT = join(ROOT, "test", "fixtures", "delegate", "agent.ts");

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

inLoopbackNamespace(import.meta.path, () => {
  describe("serve", () => {
    test("a session of three calls under a client-sent traceparent: three spans of the client's trace, flushed when serve stops", async () => {
      await using ws = tempDir();
      await using r = receiver();
      writeFileSync(join(ws.path, "a.txt"), "one\n");
      const env = {
        PATH: "/usr/bin:/bin",
        HOME: ws.path,
        CI: "true",
        OTEL_EXPORTER_OTLP_ENDPOINT: r.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      };
      const client = new Client({ name: "t", version: "1" });
      await client.connect(
        new StdioClientTransport({
          command: BIN,
          args: ["serve", "--allow-read", "--approve", "file_read,file_find"],
          cwd: ws.path,
          env,
          stderr: "pipe",
        }),
      );
      const clientSpans = ["1111111111111111", "2222222222222222", "3333333333333333"];
      const calls: [string, Record<string, unknown>][] = [
        ["file_read", { path: "a.txt" }],
        ["file_find", { pattern: "*.txt" }],
        ["file_read", { path: "missing.txt" }],
      ];
      for (const [i, [name, args]] of calls.entries()) {
        const res = await client.callTool({
          name,
          arguments: args,
          _meta: { traceparent: `00-${TRACE}-${clientSpans[i]}-01`, tracestate: "client=1" },
        });
        expect(res.isError === true).toBe(i === 2);
      }
      // A call without _meta: a trace of its own (serve has no TRACEPARENT here).
      await client.callTool({ name: "file_read", arguments: { path: "a.txt" } });
      await client.close();
      const spans = await r.waitFor(4);
      const byParent = spans.map((s) => [
        s.name,
        s.traceId === TRACE,
        s.parentSpanId,
        s.traceState,
        s.attributes["toolgate.status"],
      ]);
      expect(byParent).toEqual([
        ["execute_tool file_read", true, clientSpans[0], "client=1", "success"],
        ["execute_tool file_find", true, clientSpans[1], "client=1", "success"],
        ["execute_tool file_read", true, clientSpans[2], "client=1", "failed"],
        ["execute_tool file_read", false, "", "", "success"],
      ]);
      expect(spans[2]!.status).toEqual({ code: 2, message: "file.missing" });
    });
  });

  describe("background tasks", () => {
    test("with no call made, serve stops at once and sends nothing (the exporter's thread, started at boot, just ends)", async () => {
      await using ws = tempDir();
      await using r = receiver({ hang: true });
      const env = { PATH: "/usr/bin:/bin", HOME: ws.path, CI: "true", OTEL_EXPORTER_OTLP_ENDPOINT: r.url };
      const proc = Bun.spawn([BIN, "serve"], { cwd: ws.path, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
      // Up and answering first (the exporter's thread is started by then), then stdin closes.
      proc.stdin.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })}\n`,
      );
      proc.stdin.flush();
      const reader = proc.stdout.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('"serverInfo"');
      const t0 = performance.now();
      proc.stdin.end();
      expect(await proc.exited).toBe(0);
      // A flush towards this collector (it never answers) would hold the exit for the flush's whole second.
      expect(performance.now() - t0).toBeLessThan(900);
      expect(r.requests).toHaveLength(0);
    });

    test("a background call's span comes from its supervisor, under the caller's TRACEPARENT, with the task id", async () => {
      await using ws = tempDir();
      await using r = receiver();
      writeFileSync(join(ws.path, "a.txt"), "one\n");
      const env = { OTEL_EXPORTER_OTLP_ENDPOINT: r.url, TRACEPARENT, XDG_STATE_HOME: join(ws.path, ".state") };
      const started = await run(
        ["call", "file_read", '{"path":"a.txt"}', "--background", "--allow-read", "--approve", "file_read"],
        { cwd: ws.path, env },
      );
      expect(started.code).toBe(0);
      const id = json(started).task_id as string;
      const waited = await run(["tasks", "wait", id, "--timeout", "30"], {
        cwd: ws.path,
        env: { XDG_STATE_HOME: join(ws.path, ".state") },
      });
      expect(waited.code).toBe(0);
      const [span] = await r.waitFor(1, 20_000);
      expect([
        span!.name,
        span!.traceId,
        span!.parentSpanId,
        span!.attributes["toolgate.task_id"],
        span!.attributes["toolgate.status"],
      ]).toEqual(["execute_tool file_read", TRACE, PARENT, id, "success"]);
      expect(r.spans()).toHaveLength(1);
    });
  });

  describe("delegation", () => {
    test("a task call's child calls are spans nested under the task call's span", async () => {
      await using ws = tempDir();
      await using r = receiver();
      writeFileSync(join(ws.path, "a.txt"), "one\n");
      const cfg = join(ws.path, "..", `${ws.path.split("/").pop()}-cfg.json`);
      writeFileSync(
        cfg,
        JSON.stringify({
          workspace: ws.path,
          delegation: { command: [process.execPath, AGENT, "{objective}", "{server}"], timeout_secs: 60 },
        }),
      );
      const objective = JSON.stringify({
        calls: [
          { tool: "file_read", args: { path: "a.txt" } },
          { tool: "file_find", args: { pattern: "*.txt" } },
        ],
        say: "looked",
      });
      const c = await run(
        [
          "call",
          "task",
          JSON.stringify({ objective, kind: "scout" }),
          "--config",
          cfg,
          "--allow-read",
          "--approve",
          "task",
        ],
        { cwd: ws.path, env: { OTEL_EXPORTER_OTLP_ENDPOINT: r.url, TRACEPARENT } },
      );
      expect([c.code, json(c).payload?.status]).toEqual([0, "done"]);
      const spans = await r.waitFor(3);
      const task = spans.find((s) => s.name === "execute_tool task")!;
      expect([task.traceId, task.parentSpanId, task.attributes["toolgate.status"]]).toEqual([TRACE, PARENT, "success"]);
      const children = spans
        .filter((s) => s !== task)
        .map((s) => [s.name, s.traceId, s.parentSpanId, s.attributes["toolgate.delegated"]]);
      expect(children).toEqual([
        ["execute_tool file_read", TRACE, task.spanId, true],
        ["execute_tool file_find", TRACE, task.spanId, true],
      ]);
    }, 60_000);
  });

  describe("a warm session", () => {
    test("a forwarded call is exported by the session, under the client's TRACEPARENT", async () => {
      await using ws = tempDir();
      await using home = tempDir();
      await using r = receiver();
      writeFileSync(join(ws.path, "a.txt"), "one\n");
      // The user's folders lie outside the workspace (a session listens only there).
      const base = {
        HOME: home.path,
        XDG_STATE_HOME: join(home.path, ".state"),
        OTEL_EXPORTER_OTLP_ENDPOINT: r.url,
        OTEL_BSP_SCHEDULE_DELAY: "50",
      };
      const start = await run(["session", "start", "--idle-secs", "60"], { cwd: ws.path, env: base });
      expect(start.code).toBe(0);
      try {
        const c = await run(["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"], {
          cwd: ws.path,
          env: { ...base, TRACEPARENT },
        });
        expect(c.code).toBe(0);
        const [span] = await r.waitFor(1);
        expect([span!.traceId, span!.parentSpanId, span!.attributes["toolgate.via"]]).toEqual([
          TRACE,
          PARENT,
          "session",
        ]);
      } finally {
        await run(["session", "stop"], { cwd: ws.path, env: base });
      }
    });
  });
});
