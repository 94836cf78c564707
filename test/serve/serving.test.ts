// serve's parts as src/serve/serving.ts puts them together, in process over the SDK's
// InMemoryTransport: every tools/call and every relayed request (resources, prompts) runs through
// the one ToolCaller given to it, and nothing else runs them, so another runner of the pipeline
// can be plugged in there. The caller here records what it is asked and hands it to the real one.
import { describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { scanFlags } from "../../src/cli/flags.ts";
import { servingChoices } from "../../src/cli/serve-choices.ts";
import { approvedSet } from "../../src/runtime/call-deps.ts";
import { openRuntime } from "../../src/runtime/runtime.ts";
import { serving } from "../../src/serve/serving.ts";
import { PipelineCaller, type ToolCaller } from "../../src/serve/tool-caller.ts";
import { openState } from "../../src/state/db.ts";
import { tempDir } from "../helpers.ts";
import { site } from "./client.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "mcp", "conformance-server.ts");

describe("one tool caller runs everything served", () => {
  test("tools/call by catalog name, each relayed request as its method's entry on its server; the answers are the caller's", async () => {
    await using root = tempDir();
    const s = site(root.path);
    writeFileSync(
      join(s.ws, "toolgate.json"),
      JSON.stringify({ mcpServers: { fx: { command: process.execPath, args: [FIXTURE] } } }),
    );
    const env = { PATH: "/usr/bin:/bin", HOME: s.home, XDG_STATE_HOME: join(s.home, "state") };
    const runtime = await openRuntime({
      cwd: s.ws,
      env,
      permissionFlags: scanFlags(["--allow-run"], {}).permissions,
      interactive: false,
      stateDb: undefined,
      state: { open: (config) => openState(config.values.state as string) },
      telemetry: undefined,
    });
    const { booted } = runtime;
    const operator: string[] = [];
    const wiring = {
      lane: "default",
      operator: (line: string) => void operator.push(line),
      unstarted: (e: unknown): never => {
        throw e;
      },
      unfinished: (e: unknown) => {
        throw e;
      },
    };
    const choices = servingChoices(booted, undefined, undefined);
    const approved = approvedSet(["all"]);
    const real = new PipelineCaller({
      runtime,
      caller: { ...wiring, approved },
      profile: choices.profile,
      child: false,
      callable: () => [],
    });
    const asked: string[] = [];
    const recording: ToolCaller = {
      call: (name, args, how) => (asked.push(`call ${name}`), real.call(name, args, how)),
      callEntry: (entry, args, how) => (asked.push(`${entry.origin} ${entry.name}`), real.callEntry(entry, args, how)),
      drain: (ms) => real.drain(ms),
    };
    const { hub } = serving(runtime, { ...choices, child: false, approved }, { ...wiring, version: "0" }, recording);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await hub.connect(serverSide, { sessionApprovals: false });
    const client = new Client({ name: "t", version: "1" });
    await client.connect(clientSide);
    try {
      expect((await client.callTool({ name: "plan", arguments: {} })).isError).toBeUndefined();
      expect((await client.callTool({ name: "fx__test_simple_text", arguments: {} })).content).toEqual([
        { type: "text", text: "This is a simple text response for testing." },
      ]);
      expect(asked.splice(0)).toEqual(["call plan", "call fx__test_simple_text"]);
      // A read as the client's first request: the only server with resources has it.
      expect((await client.readResource({ uri: "test://static-text" })).contents).toEqual([
        { uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." },
      ]);
      expect(asked.splice(0)).toEqual(["mcp:fx resources/read"]);
      expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
        "test://template/{id}/data",
      ]);
      expect(asked.splice(0)).toEqual(["mcp:fx resources/templates/list"]);
      expect((await client.getPrompt({ name: "fx__test_simple_prompt" })).messages.length).toBeGreaterThan(0);
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain("fx__test_simple_prompt");
      expect(asked.splice(0)).toEqual(["mcp:fx prompts/get", "mcp:fx prompts/list"]);
    } finally {
      await client.close();
      await hub.drain(10_000);
      await hub.close();
      await runtime.close();
    }
    expect(operator).toEqual([]);
  }, 30_000);
});
