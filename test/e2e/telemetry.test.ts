// OpenTelemetry end to end through dist/toolgate, inside a loopback-only network namespace: a
// one-shot call's journal row arrives as one span at a loopback OTLP/HTTP receiver (protobuf by
// default, JSON on request), sent by the detached reaper after the result; refusals are error spans;
// nothing of the call's content, no path and no secret is in any exported byte; a collector that is
// down or silent changes nothing for the caller; a workspace config cannot name an endpoint.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, tempDir } from "../helpers.ts";
import { SAID_HELLO, serveMcp } from "../support/http-mcp-server.ts";
import { WAIT_MS, waitFor } from "../support/wait.ts";
import { inLoopbackNamespace } from "../http/netns.ts";
import { receiver } from "../telemetry/receiver.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE}-${PARENT}-01`;
const otel = (r: { url: string }, extra: Record<string, string> = {}) => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: r.url,
  TRACEPARENT,
  ...extra,
});
const readCall = ["call", "file_read", '{"path":"README.md"}', "--allow-read", "--approve", "file_read"];

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

/** Runs the binary and notes when it exited (the caller's side of the timing). */
async function timed(args: string[], cwd: string, env: Record<string, string>) {
  const t0 = Date.now();
  const r = await run(args, { cwd, env });
  return { ...r, exitedAt: Date.now(), ms: Date.now() - t0 };
}

/** An authored tool whose printed result carries a local path: the boundary rejects it. */
function leakyTool(ws: string, printed: string): void {
  const dir = join(ws, "tools", "leak");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "tool.json"),
    JSON.stringify({ name: "leak", description: "d", input_schema: { type: "object" } }),
  );
  writeFileSync(join(dir, "run"), `#!/bin/sh\ncat >/dev/null\necho '${printed}'\n`);
  chmodSync(join(dir, "run"), 0o755);
}

inLoopbackNamespace(import.meta.path, () => {
  describe("a one-shot call's span", () => {
    test("a successful call is one span under TRACEPARENT, protobuf by default, sent within 500 ms of the call's exit", async () => {
      await using ws = tempDir();
      await using r = receiver();
      writeFileSync(join(ws.path, "README.md"), "# hello\n");
      const c = await timed(readCall, ws.path, otel(r));
      expect([c.code, json(c).status, c.stderr]).toEqual([0, "success", ""]);
      const [span] = await r.waitFor(1);
      expect(r.requests.map((q) => [q.path, q.contentType])).toEqual([["/v1/traces", "application/x-protobuf"]]);
      expect(r.requests[0]!.at - c.exitedAt).toBeLessThan(500);
      expect(span).toEqual({
        traceId: TRACE,
        spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
        parentSpanId: PARENT,
        traceState: "",
        name: "execute_tool file_read",
        kind: 1,
        start: expect.any(Number),
        end: expect.any(Number),
        attributes: {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": "file_read",
          "toolgate.origin": "builtin",
          "toolgate.effect": "read",
          "toolgate.approval": "flag",
          "toolgate.status": "success",
          "toolgate.exit_code": 0,
          "toolgate.duration_ms": expect.any(Number),
          "toolgate.sandbox": "off",
          "toolgate.lane": "default",
        },
        status: { code: 0, message: "" },
        resource: expect.objectContaining({
          "service.name": "toolgate",
          "service.version": expect.any(String),
          "telemetry.sdk.name": "opentelemetry",
        }),
      });
      expect(span!.start).toBeGreaterThan(Date.now() - 60_000);
      expect(span!.end).toBeGreaterThanOrEqual(span!.start);
    });

    test("http/json, the traces endpoint as given, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES and the headers", async () => {
      await using ws = tempDir();
      await using r = receiver();
      writeFileSync(join(ws.path, "README.md"), "# hello\n");
      const env = {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${r.url}/custom/path`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_SERVICE_NAME: "ci-runner",
        OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=ci,team=tools",
        OTEL_EXPORTER_OTLP_HEADERS: "x-team-key=abc%20def",
      };
      const c = await run(readCall, { cwd: ws.path, env });
      expect(c.code).toBe(0);
      const [span] = await r.waitFor(1);
      expect([r.requests[0]!.path, r.requests[0]!.contentType, r.requests[0]!.headers["x-team-key"]]).toEqual([
        "/custom/path",
        "application/json",
        "abc def",
      ]);
      expect(span!.resource).toMatchObject({
        "service.name": "ci-runner",
        "deployment.environment": "ci",
        team: "tools",
      });
      // No TRACEPARENT: a trace of its own.
      expect([span!.parentSpanId, span!.traceId]).toEqual(["", expect.stringMatching(/^[0-9a-f]{32}$/)]);
    });

    test("a permission refusal is a span with status error (exit 4)", async () => {
      await using ws = tempDir();
      await using r = receiver();
      writeFileSync(join(ws.path, "README.md"), "# hello\n");
      const c = await run(["call", "file_read", '{"path":"README.md"}', "--approve", "file_read"], {
        cwd: ws.path,
        env: otel(r),
      });
      expect([c.code, json(c).error_code]).toEqual([4, "permission.denied"]);
      const [span] = await r.waitFor(1);
      expect([span!.name, span!.status, span!.parentSpanId]).toEqual([
        "execute_tool file_read",
        { code: 2, message: "permission.denied" },
        PARENT,
      ]);
      expect(span!.attributes).toMatchObject({
        "toolgate.status": "failed",
        "toolgate.error_code": "permission.denied",
        "error.type": "permission.denied",
        "toolgate.exit_code": 4,
      });
      expect(span!.attributes["toolgate.approval"]).toBeUndefined();
    });

    test("an unknown tool's name (the caller's text) is never exported", async () => {
      await using ws = tempDir();
      await using r = receiver();
      const c = await run(["call", "secret_sk_live_CANARY"], { cwd: ws.path, env: otel(r) });
      expect([c.code, json(c).error_code]).toEqual([1, "unknown_tool"]);
      const [span] = await r.waitFor(1);
      expect([span!.name, span!.attributes["gen_ai.tool.name"], span!.attributes["toolgate.error_code"]]).toEqual([
        "execute_tool",
        undefined,
        "unknown_tool",
      ]);
      expect(Buffer.from(r.requests[0]!.bytes).includes("CANARY")).toBe(false);
    });

    test("a boundary rejection names the rule and its JSON place; no path, secret or argument is in any exported byte", async () => {
      await using ws = tempDir();
      await using r = receiver();
      leakyTool(ws.path, '{"where":"see /home/canary-user/.ssh/id_rsa"}');
      const env = otel(r, {
        OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20header-CANARY-1",
        TRACESTATE: "vendor=abc",
      });
      const c = await run(
        ["call", "leak", '{"token":"arg-CANARY-2","file":"/etc/canary-3"}', "--allow-run", "--approve", "all"],
        { cwd: ws.path, env },
      );
      expect([c.code, json(c)]).toEqual([1, { status: "failed", error_code: "sensitive_output_rejected" }]);
      const [span] = await r.waitFor(1);
      expect([span!.name, span!.status, span!.traceState]).toEqual([
        "execute_tool leak",
        { code: 2, message: "sensitive_output_rejected" },
        "vendor=abc",
      ]);
      expect(span!.attributes).toMatchObject({
        "toolgate.origin": "authored",
        "toolgate.boundary.rule": "local_path",
        "toolgate.boundary.where": "$.where",
        "toolgate.error_code": "sensitive_output_rejected",
      });
      expect(r.requests[0]!.headers.authorization).toBe("Bearer header-CANARY-1");
      const bytes = Buffer.from(r.requests[0]!.bytes);
      for (const canary of ["CANARY", "canary", ws.path, "/home/", "/etc/", "/tmp/"])
        expect([canary, bytes.includes(canary)]).toEqual([canary, false]);
      for (const v of Object.values(span!.attributes))
        expect(String(v).includes("/") && String(v) !== "$.where").toBe(false);
    });
  });

  describe("trace context carried on", () => {
    /** An MCP server over Streamable HTTP that notes each tools/call's traceparent header and `_meta`. */
    function mcpServer() {
      const seen: { header: string | null; meta: unknown }[] = [];
      const server = serveMcp({
        call: (request, http) => (
          seen.push({ header: http!.headers.get("traceparent"), meta: request.params._meta ?? null }), SAID_HELLO
        ),
      });
      return { seen, url: server.url, port: server.port, [Symbol.asyncDispose]: async () => server.stop() };
    }

    test("a call to an HTTP MCP server carries the call span's traceparent (header and _meta); none without telemetry", async () => {
      await using ws = tempDir();
      await using r = receiver();
      await using mcp = mcpServer();
      writeFileSync(
        join(ws.path, "toolgate.json"),
        JSON.stringify({ mcpServers: { web: { type: "http", url: mcp.url } } }),
      );
      const args = ["call", "web__hello", "{}", `--allow-net=127.0.0.1:${mcp.port}`, "--approve", "all"];
      const plain = await run(args, { cwd: ws.path });
      expect([plain.code, mcp.seen]).toEqual([0, [{ header: null, meta: { progressToken: expect.anything() } }]]);
      const c = await run(args, { cwd: ws.path, env: otel(r, { TRACESTATE: "team=tools" }) });
      expect(c.code).toBe(0);
      const [span] = await r.waitFor(1);
      const expected = `00-${TRACE}-${span!.spanId}-01`;
      expect(mcp.seen[1]).toEqual({
        header: expected,
        meta: { traceparent: expected, tracestate: "team=tools", progressToken: expect.anything() },
      });
      expect(span!.attributes).toMatchObject({
        "gen_ai.tool.name": "web__hello",
        "toolgate.origin": "mcp:web",
        "toolgate.server": "web",
        "toolgate.approval": "flag",
      });
    });
  });

  describe("never in the way", () => {
    test("a collector that is down: the same result, exit code and stdout; one stderr line (a file), from the reaper", async () => {
      await using ws = tempDir();
      writeFileSync(join(ws.path, "README.md"), "# hello\n");
      const closed = receiver();
      const url = closed.url;
      await closed[Symbol.asyncDispose]();
      const plain = await run(readCall, { cwd: ws.path });
      const errFile = join(ws.path, "stderr.txt");
      const p = Bun.spawn([BIN, ...readCall], {
        cwd: ws.path,
        env: { PATH: "/usr/bin:/bin", HOME: ws.path, CI: "true", ...otel({ url }) },
        stdout: "pipe",
        stderr: Bun.file(errFile),
      });
      const [out, code] = await Promise.all([new Response(p.stdout).text(), p.exited]);
      expect([code, out]).toEqual([plain.code, plain.stdout]);
      // The reaper writes its one line after the caller is gone; wait for it (bounded).
      await waitFor("the reaper's line", () => readFileSync(errFile, "utf8").includes("\n"), WAIT_MS, 50);
      const lines = readFileSync(errFile, "utf8").trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^toolgate: telemetry: 1 span\(s\) could not be sent to http:\/\/127\.0\.0\.1:\d+\/v1\/traces: .*cannot be reached/,
      );
    });

    test("a collector that never answers does not hold the call (it exits as fast as without telemetry)", async () => {
      await using ws = tempDir();
      await using silent = receiver({ hang: true });
      writeFileSync(join(ws.path, "README.md"), "# hello\n");
      const c = await timed(readCall, ws.path, otel(silent));
      expect([c.code, c.stderr]).toEqual([0, ""]);
      await silent.waitFor(1);
      // The reaper holds the request; the caller left long before: at most its own cold start.
      expect(silent.requests[0]!.at).toBeGreaterThanOrEqual(c.exitedAt - 50);
      expect(c.ms).toBeLessThan(5_000);
    });

    test("OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none send nothing; a grpc protocol says so in one line", async () => {
      await using ws = tempDir();
      await using r = receiver();
      writeFileSync(join(ws.path, "README.md"), "# hello\n");
      for (const extra of [{ OTEL_SDK_DISABLED: "true" }, { OTEL_TRACES_EXPORTER: "none" }] as Record<string, string>[])
        expect((await run(readCall, { cwd: ws.path, env: otel(r, extra) })).stderr).toBe("");
      const g = await run(readCall, { cwd: ws.path, env: otel(r, { OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }) });
      expect([g.code, g.stderr]).toEqual([
        0,
        'toolgate: telemetry: OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is not supported: telemetry is off (use http/protobuf, the default, or http/json)\n',
      ]);
      // A call whose span would be sent, after the others: only its span arrives.
      await run(["call", "file_read", '{"path":"nope.md"}', "--allow-read", "--approve", "file_read"], {
        cwd: ws.path,
        env: otel(r),
      });
      const spans = await r.waitFor(1);
      expect(spans.map((s) => s.attributes["toolgate.error_code"])).toEqual(["file.missing"]);
    });
  });

  describe("the endpoint is the user's", () => {
    test("toolgate config shows the endpoint, protocol, service name and header names, never a header value or credential", async () => {
      await using ws = tempDir();
      const env = {
        OTEL_EXPORTER_OTLP_ENDPOINT: "https://user:pw@collector.example:4318/otlp?key=k",
        OTEL_EXPORTER_OTLP_HEADERS: "x-honeycomb-team=hdr-CANARY,other=v",
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      };
      const c = await run(["config", "--json"], { cwd: ws.path, env });
      const out = json(c);
      expect(Object.fromEntries(Object.entries(out).filter(([k]) => k.startsWith("telemetry.")))).toEqual({
        "telemetry.endpoint": {
          value: "https://collector.example:4318/otlp/v1/traces?…",
          origin: "env:OTEL_EXPORTER_OTLP_ENDPOINT",
        },
        "telemetry.protocol": { value: "http/json", origin: "env:OTEL_EXPORTER_OTLP_PROTOCOL" },
        "telemetry.service_name": { value: "toolgate", origin: "default" },
        "telemetry.headers": { value: ["other", "x-honeycomb-team"], origin: "env:OTEL_EXPORTER_OTLP_HEADERS" },
      });
      for (const secret of ["CANARY", "pw@", "key=k"]) expect(c.stdout.includes(secret)).toBe(false);
      expect(json(await run(["config", "--json"], { cwd: ws.path }))["telemetry.endpoint"]).toEqual({
        value: null,
        origin: "default",
      });
    });

    test("a workspace toolgate.json that names an endpoint is refused while untrusted (exit 5); nothing is sent", async () => {
      await using ws = tempDir();
      await using r = receiver();
      writeFileSync(join(ws.path, "README.md"), "# hello\n");
      writeFileSync(join(ws.path, "toolgate.json"), JSON.stringify({ telemetry: { endpoint: r.url } }));
      const c = await run(readCall, { cwd: ws.path, env: { OTEL_EXPORTER_OTLP_ENDPOINT: r.url } });
      expect(c.code).toBe(5);
      expect(c.stderr).toContain("telemetry: a config file cannot set where spans go");
      expect(c.stderr).toContain("OTEL_EXPORTER_OTLP_ENDPOINT");
      const e = await run(readCall, { cwd: ws.path, env: {} });
      expect(e.code).toBe(5);
      writeFileSync(join(ws.path, "toolgate.json"), JSON.stringify({ OTEL_EXPORTER_OTLP_ENDPOINT: r.url }));
      expect((await run(readCall, { cwd: ws.path, env: {} })).code).toBe(5);
      // Nothing ran, so nothing was sent: a call elsewhere afterwards is the only span.
      await using other = tempDir();
      writeFileSync(join(other.path, "README.md"), "# other\n");
      expect((await run(readCall, { cwd: other.path, env: otel(r) })).code).toBe(0);
      await r.waitFor(1);
      expect(r.spans().length).toBe(1);
    });
  });
});
