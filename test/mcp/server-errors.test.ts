// Whose error it is: a JSON-RPC error the server sent is the server's answer ("protocol", its code
// and message), whatever its code, over a pipe and over HTTP; "deadline", "transport" and "cancelled"
// are only what the SDK's client saw itself (its timer, the connection closing, its caller's abort),
// though it gives those the same codes, -32001 and -32000, that a server may use for errors of its own.
// Full suite only: a server as a child; a call never answered waits out the request deadline.
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { StreamRedactor } from "../../src/boundary/redact.ts";
import { childEnv } from "../../src/launcher/env.ts";
import { connectTarget, type Target } from "../../src/mcp/connect.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "mcp", "wire.ts");
const opts = {
  pin: false,
  connectTimeoutMs: 10_000,
  requestTimeoutMs: 10_000,
  version: "test",
  redactor: (s: readonly string[]) => new StreamRedactor(s),
};

function stdio(args: string[] = []): Target {
  const env = childEnv({ parent: {}, values: {} });
  if (!env.ok) throw new Error(env.refusal.message);
  return {
    kind: "stdio",
    name: "wire",
    argv: [process.execPath, FIXTURE, ...args],
    env: env.value,
    cwd: import.meta.dir,
  };
}

const CODES = [-32000, -32001, -32603, 7] as const;

describe("over a pipe", () => {
  test.each(CODES)(
    "an error answer of code %d is the server's, with its message; the connection goes on",
    async (code) => {
      const c = await connectTarget(stdio(), opts);
      try {
        expect(
          await c.session.callTool("echo", { message: `error:${code}:busy elsewhere` }, { timeoutMs: 5_000 }),
        ).toEqual({ ok: false, kind: "protocol", code, message: `MCP error ${code}: busy elsewhere` });
        expect(await c.session.callTool("echo", { message: "after" }, { timeoutMs: 5_000 })).toEqual({
          ok: true,
          result: { content: [{ type: "text", text: "after" }] },
        });
      } finally {
        await c.close(1_000);
      }
    },
  );

  test("no answer within the request's time is the client's own deadline; a child that dies mid-call is a lost connection", async () => {
    const c = await connectTarget(stdio(), opts);
    try {
      const late = await c.session.callTool("echo", { message: "silent" }, { timeoutMs: 300 });
      expect(late.ok === false && late.kind).toBe("deadline");
      const pending = c.session.callTool("echo", { message: "silent" }, { timeoutMs: 10_000 });
      process.kill(c.child!.pid, "SIGKILL");
      const lost = await pending;
      expect(lost.ok === false && lost.kind).toBe("transport");
    } finally {
      await c.close(0);
    }
  });

  test("a request its caller aborts is cancelled, not the deadline the SDK rejects it as", async () => {
    const c = await connectTarget(stdio(), opts);
    try {
      const abort = new AbortController();
      const pending = c.session.callTool("echo", { message: "silent" }, { timeoutMs: 10_000, signal: abort.signal });
      abort.abort();
      const cut = await pending;
      expect(cut.ok === false && cut.kind).toBe("cancelled");
      expect(await c.session.callTool("echo", { message: "after" }, { timeoutMs: 5_000 })).toEqual({
        ok: true,
        result: { content: [{ type: "text", text: "after" }] },
      });
    } finally {
      await c.close(0);
    }
  });

  test("initialize answered with -32001 fails the connect with the server's words, not as a connect timeout", async () => {
    const failed = await connectTarget(stdio(["--init=error", "--init-code=-32001"]), opts).then(
      () => undefined,
      (e: Error & { connectTimeout?: boolean }) => e,
    );
    expect(failed?.message).toContain("MCP error -32001: no initialize today");
    expect(failed?.connectTimeout).toBe(false);
  });
});

describe("over HTTP", () => {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (req.method !== "POST") return new Response(null, { status: 405 });
      const m = (await req.json()) as {
        id?: number;
        method: string;
        params?: { protocolVersion?: string; arguments?: { code?: number } };
      };
      if (m.id === undefined) return new Response(null, { status: 202 });
      if (m.method === "initialize")
        return Response.json({
          jsonrpc: "2.0",
          id: m.id,
          result: {
            protocolVersion: m.params?.protocolVersion,
            capabilities: { tools: {} },
            serverInfo: { name: "h", version: "1" },
          },
        });
      if (m.method === "tools/list")
        return Response.json({
          jsonrpc: "2.0",
          id: m.id,
          result: { tools: [{ name: "fail", inputSchema: { type: "object" } }] },
        });
      return Response.json({
        jsonrpc: "2.0",
        id: m.id,
        error: { code: m.params?.arguments?.code, message: "the backend said no" },
      });
    },
  });
  afterAll(() => server.stop(true));

  test.each(CODES)("an error answer of code %d is the server's, with its message", async (code) => {
    const c = await connectTarget(
      { kind: "http", name: "h", url: `http://127.0.0.1:${server.port}/mcp`, headers: {} },
      opts,
    );
    try {
      expect(await c.session.callTool("fail", { code }, { timeoutMs: 5_000 })).toEqual({
        ok: false,
        kind: "protocol",
        code,
        message: `MCP error ${code}: the backend said no`,
      });
    } finally {
      await c.close(1_000);
    }
  });
});
