// What an upstream MCP server asks during a served call reaches the client that made the call, as
// far as that client declared it can take it (the SDK's Client driving serve in process,
// test/support/serve-in-memory.ts; over --http, dist/toolgate): elicitation relayed (toolgate
// applies the schema's defaults) or declined, sampling relayed or refused, progress relayed when
// the client sent a progressToken.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ElicitRequest, Progress } from "@modelcontextprotocol/sdk/types.js";
import { clientTakesForms } from "../../src/serve/peer.ts";
import { tempDir } from "../helpers.ts";
import { serveInMemory } from "../support/serve-in-memory.ts";
import { journal, site, type ServeOptions } from "./client.ts";
import { connect, serveHttp } from "./http-client.ts";

const ASKING = join(import.meta.dir, "..", "fixtures", "mcp", "asking.ts");
const text = (r: object) => (r as { content: { text: string }[] }).content[0]!.text;

async function served(root: string, o: Partial<ServeOptions> = {}, flags: string[] = []) {
  const s = site(root);
  writeFileSync(
    join(s.ws, "toolgate.json"),
    JSON.stringify({ mcpServers: { ask: { command: process.execPath, args: [ASKING] } } }),
  );
  return {
    s,
    served: await serveInMemory(["--allow-run", "--approve", "all", ...flags], { cwd: s.ws, home: s.home, ...o }),
  };
}

describe("elicitation from an upstream server", () => {
  test("relayed to a client that declares it; omitted fields get the schema's defaults; the journal says accepted", async () => {
    await using root = tempDir();
    const asked: ElicitRequest[] = [];
    const { s, served: c } = await served(root.path, {
      elicit: (req) => (asked.push(req), { action: "accept", content: { name: "Zed", age: 9 } }),
    });
    await using _ = c;
    const r = await c.client.callTool({ name: "ask__profile", arguments: {} });
    expect(text(r)).toBe('action=accept content={"name":"Zed","age":9,"color":"green","subscribe":false}');
    expect(
      asked.map((a) => [
        a.params.message,
        (a.params as { requestedSchema: { required: string[] } }).requestedSchema.required,
      ]),
    ).toEqual([["Who are you?", ["name"]]]);
    const rows = await journal(s.ws, s.home);
    expect(JSON.parse(rows.at(-1).detail)).toEqual({ elicited: "accepted" });
  }, 30_000);

  test("a client without elicitation: declined, and the operator hears why", async () => {
    await using root = tempDir();
    const { served: c } = await served(root.path);
    await using _ = c;
    const r = await c.client.callTool({ name: "ask__profile", arguments: {} });
    expect(text(r)).toBe("action=decline content=null");
    expect(c.stderr()).toContain(
      'toolgate: MCP server "ask" asked for input during ask__profile (elicitation); declined: the client does not declare form elicitation',
    );
  }, 30_000);
});

test("--child relays no question, even to a client that declares elicitation", async () => {
  await using root = tempDir();
  const asked: ElicitRequest[] = [];
  const { served: c } = await served(
    root.path,
    { elicit: (req) => (asked.push(req), { action: "accept", content: {} }) },
    ["--child"],
  );
  await using _ = c;
  const r = await c.client.callTool({ name: "ask__profile", arguments: {} });
  expect([text(r), asked.length]).toEqual(["action=decline content=null", 0]);
  expect(c.stderr()).toContain("declined: this unattended child session relays no question");
}, 30_000);

describe("sampling from an upstream server", () => {
  test("relayed to a client that declares sampling", async () => {
    await using root = tempDir();
    const { served: c } = await served(root.path, {
      sample: (req) => ({
        model: "test-model",
        role: "assistant",
        content: { type: "text", text: `hi (${req.params.maxTokens} tokens)` },
      }),
    });
    await using _ = c;
    const r = await c.client.callTool({ name: "ask__sample", arguments: {} });
    expect(text(r)).toBe('sampled: {"type":"text","text":"hi (20 tokens)"}');
  }, 30_000);

  test("refused for a client without it: toolgate holds no model", async () => {
    await using root = tempDir();
    const { served: c } = await served(root.path);
    await using _ = c;
    const r = await c.client.callTool({ name: "ask__sample", arguments: {} });
    expect(text(r)).toBe(
      "sampling failed: MCP error -32600: toolgate holds no model, so it cannot answer sampling/createMessage and the caller cannot relay it; the request is declined",
    );
  }, 30_000);
});

describe("progress from an upstream server", () => {
  test("relayed to a client that sent a progressToken", async () => {
    await using root = tempDir();
    const { served: c } = await served(root.path);
    await using _ = c;
    const seen: Progress[] = [];
    const r = await c.client.callTool({ name: "ask__slow", arguments: {} }, undefined, {
      onprogress: (p) => void seen.push(p),
    });
    expect(text(r)).toBe("done (progressToken: yes)");
    expect(seen).toEqual([1, 2, 3].map((i) => ({ progress: i, total: 3, message: `step ${i}` })));
  }, 30_000);
});

test("over --http too: elicitation and progress reach the calling client", async () => {
  await using root = tempDir();
  const s = site(root.path);
  writeFileSync(
    join(s.ws, "toolgate.json"),
    JSON.stringify({ mcpServers: { ask: { command: process.execPath, args: [ASKING] } } }),
  );
  await using h = await serveHttp(["--allow-run", "--approve", "all"], { cwd: s.ws, home: s.home });
  await using client = await connect(h.url, {
    token: h.token,
    elicit: () => ({ action: "accept", content: { name: "Hal" } }),
  });
  const asked = await client.callTool({ name: "ask__profile", arguments: {} });
  expect(text(asked)).toBe('action=accept content={"name":"Hal","age":36,"color":"green","subscribe":false}');
  const seen: number[] = [];
  const slow = await client.callTool({ name: "ask__slow", arguments: {} }, undefined, {
    onprogress: (p) => void seen.push(p.progress),
  });
  expect([text(slow), seen]).toEqual(["done (progressToken: yes)", [1, 2, 3]]);
}, 30_000);

describe("clientTakesForms", () => {
  test.each([
    [undefined, false],
    [{}, false],
    [{ elicitation: {} }, true],
    [{ elicitation: { form: {} } }, true],
    [{ elicitation: { url: {} } }, false],
    [{ elicitation: { form: {}, url: {} } }, true],
  ])("%o → %p", (caps, expected) => {
    expect(clientTakesForms(caps)).toBe(expected);
  });
});
