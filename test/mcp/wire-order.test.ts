// What a stdio connect sends, seen by a server written on the wire (test/fixtures/mcp/wire.ts):
// initialize, one notifications/initialized, tools/list (every page), then the call; a list that
// fails, never comes or whose server dies fails the connect with the SDK's own words.
// Full suite only: a server as a child; a list never answered waits out the request deadline.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { StreamRedactor } from "../../src/boundary/redact.ts";
import { childEnv } from "../../src/launcher/env.ts";
import { connectTarget, type Target } from "../../src/mcp/connect.ts";
import { tempDir } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "mcp", "wire.ts");
const opts = {
  pin: false,
  connectTimeoutMs: 10_000,
  requestTimeoutMs: 10_000,
  version: "test",
  redactor: (s: readonly string[]) => new StreamRedactor(s),
};

function target(args: string[]): Target {
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

const received = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { id?: unknown; method?: string; params?: { cursor?: string } });

describe("a stdio connect on the wire", () => {
  test("initialize, its answer, one notifications/initialized, tools/list, then the call: in that order", async () => {
    await using dir = tempDir();
    const log = join(dir.path, "wire.log");
    const c = await connectTarget(target([`--log=${log}`]), opts);
    try {
      expect(c.tools.map((t) => t.name)).toEqual(["echo"]);
      expect(await c.session.callTool("echo", { message: "hi" }, { timeoutMs: 5000 })).toEqual({
        ok: true,
        result: { content: [{ type: "text", text: "hi" }] },
      });
    } finally {
      await c.close(1000);
    }
    const methods = received(log).map((m) => m.method);
    expect(methods).toEqual(["initialize", "notifications/initialized", "tools/list", "tools/call"]);
    // The list went out behind the notification, before the SDK asked (EarlyInitialized): under its own id.
    expect(received(log)[2]!.id).toBe(2 ** 31 - 1);
  });

  // The call's result parser is made once per connection (and built before the server answers):
  // each result is still checked by the SDK's CallToolResultSchema, the bad one between good ones too.
  test("every call's result is checked by the SDK's schema: one it refuses fails the call, and the next call is checked again", async () => {
    const c = await connectTarget(target([]), opts);
    try {
      const call = (message: string) => c.session.callTool("echo", { message }, { timeoutMs: 5000 });
      expect(await call("one")).toEqual({ ok: true, result: { content: [{ type: "text", text: "one" }] } });
      const bad = await call("malformed");
      expect(bad.ok === false && bad.message).toContain("expected array");
      expect(bad.ok === false && [bad.kind, bad.message.split(":")[0]]).toEqual(["malformed", "content"]);
      expect(await call("two")).toEqual({ ok: true, result: { content: [{ type: "text", text: "two" }] } });
      const again = await call("malformed");
      expect(again.ok === false && again.message).toContain("expected array");
    } finally {
      await c.close(1000);
    }
  });

  // serve relays reads, prompts and completions through request(): their answers' schema is made
  // once per connection (a new one per request compiled its parser each time, ~70 µs of a relay).
  test("any other request's answer is checked by one schema made at the connect, not one per request", async () => {
    const types = await import("@modelcontextprotocol/sdk/types.js");
    const schema = types.ResultSchema as unknown as { passthrough: () => unknown };
    const made = schema.passthrough;
    let count = 0;
    schema.passthrough = function (this: unknown) {
      count++;
      return made.call(this);
    };
    try {
      const c = await connectTarget(target([]), opts);
      try {
        const atConnect = count;
        for (let i = 0; i < 5; i++)
          expect(await c.session.request("ping", {}, { timeoutMs: 5000 })).toMatchObject({
            ok: false,
            kind: "protocol",
          });
        expect([atConnect, count]).toEqual([1, 1]);
      } finally {
        await c.close(1000);
      }
    } finally {
      schema.passthrough = made;
    }
  });

  test("every page is asked for, at the connect and at a later listing", async () => {
    await using dir = tempDir();
    const log = join(dir.path, "wire.log");
    const c = await connectTarget(target([`--log=${log}`, "--list=paged"]), opts);
    try {
      expect(c.tools.map((t) => t.name)).toEqual(["echo", "second"]);
      // A later listing (a gateway's re-list) is an ordinary request.
      expect((await c.session.listTools(5000)).map((t) => t.name)).toEqual(["echo", "second"]);
    } finally {
      await c.close(1000);
    }
    const lists = received(log).filter((m) => m.method === "tools/list");
    expect(lists.map((m) => m.params?.cursor ?? null)).toEqual([null, "2", null, "2"]);
    expect(received(log).filter((m) => m.method === "notifications/initialized")).toHaveLength(1);
  });

  // rmcp (the Rust SDK) read request ids as u32 before 0.6.3, and a message it could not read ended
  // its server: the early list's id must be one such a server reads.
  test("a server that reads request ids as 32-bit unsigned integers lists its tools", async () => {
    const c = await connectTarget(target(["--ids=u32"]), opts);
    try {
      expect(c.tools.map((t) => t.name)).toEqual(["echo"]);
    } finally {
      await c.close(1000);
    }
  });

  test("a list answered with an error fails the connect with the server's words", async () => {
    await expect(connectTarget(target(["--list=error"]), opts)).rejects.toThrow("MCP error -32603: the list is broken");
  });

  test("a server that exits before it answers the list fails the connect as closed", async () => {
    await expect(connectTarget(target(["--list=close"]), opts)).rejects.toThrow(/Connection closed/);
  });

  test("a list never answered fails at the request deadline, and the server is told to stop it", async () => {
    await using dir = tempDir();
    const log = join(dir.path, "wire.log");
    await expect(
      connectTarget(target([`--log=${log}`, "--list=silent"]), { ...opts, requestTimeoutMs: 300 }),
    ).rejects.toThrow("MCP error -32001: Request timed out");
    const m = received(log);
    const list = m.find((x) => x.method === "tools/list")!;
    expect(m.filter((x) => x.method === "tools/list")).toHaveLength(1);
    // The cancellation names the request the server saw, and the server read it: a failed connect
    // closes the child's stdin behind it and gives it a moment to leave before its tree is killed.
    expect(
      m
        .filter((x) => x.method === "notifications/cancelled")
        .map((x) => (x.params as { requestId?: unknown }).requestId),
    ).toEqual([list.id]);
  });

  test("a server that stops reading as it answers initialize fails the connect at once with the broken pipe, not at the deadline", async () => {
    const t0 = performance.now();
    const failed = await connectTarget(target(["--init=close-stdin"]), { ...opts, requestTimeoutMs: 8_000 }).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(failed).toMatch(/EPIPE|broken pipe/);
    // Within the failed connect's grace (this server outlives its stdin, so it waits it out), far before the deadline.
    expect(performance.now() - t0).toBeLessThan(4_000);
  });

  test("an initialize answered with an error sends nothing more", async () => {
    await using dir = tempDir();
    const log = join(dir.path, "wire.log");
    await expect(connectTarget(target([`--log=${log}`, "--init=error"]), opts)).rejects.toThrow("no initialize today");
    expect(received(log).map((m) => m.method)).toEqual(["initialize"]);
  });
});
