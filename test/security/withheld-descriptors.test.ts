// What an MCP server declares reaches no model unchecked: a tool whose listing carries a private
// key (description), a default under a secret-named key (input schema), an API key (_meta) or a
// local path (annotations.title) is withheld from `tools`, `serve` and `serve --expose`, and a
// call of it is refused; the operator hears the rule and where, no view shows the value. The
// server's --allow-local-paths lets the path one through, and nothing else.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LEAKS, TOOLS } from "../fixtures/mcp/declares.ts";
import { BIN, json, run, tempDir, type RunResult } from "../helpers.ts";
import { serve } from "../serve/client.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const FIXTURE = join(import.meta.dir, "..", "fixtures", "mcp", "declares.ts");
const HOSTILE = ["pem_doc", "secret_default", "meta_key", "shadow_title"];

/** The operator's line for each hostile tool: the rule and the place. */
const NOTES: Record<string, string> = {
  pem_doc:
    'mcp:desc: tool "pem_doc" withheld: what it declares breaks the output boundary (rule pem at $.description, the value is not shown)',
  secret_default:
    'mcp:desc: tool "secret_default" withheld: what it declares breaks the output boundary (rule secret_key at $.inputSchema.properties.password, the value is not shown)',
  meta_key:
    'mcp:desc: tool "meta_key" withheld: what it declares breaks the output boundary (rule secret_key at $._meta.api_key, the value is not shown)',
  shadow_title:
    'mcp:desc: tool "shadow_title" withheld: what it declares breaks the output boundary (rule local_path at $.annotations.title, the value is not shown); if its descriptors rightly hold absolute paths, --allow-local-paths=desc lets them through',
};

/** A workspace, and a HOME beside it holding the user's own config naming the fixture as `desc`. */
function site(root: string): { ws: string; home: string; config: string } {
  const ws = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(ws);
  mkdirSync(home);
  const config = join(home, "toolgate.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { desc: { command: process.execPath, args: [FIXTURE] } } }));
  return { ws, home, config };
}

const env = (home: string) => ({ HOME: home, XDG_STATE_HOME: join(home, "state") });
const listed = (r: RunResult) =>
  r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { name: string; origin: string })
    .filter((d) => d.origin === "mcp:desc")
    .map((d) => d.name);

/** No value the fixture hides shows in any of these views. */
function noLeaks(...views: string[]): void {
  for (const view of views)
    for (const value of [...Object.values(LEAKS), "BEGIN PRIVATE KEY"]) expect(view).not.toContain(value);
}

describe("tools the output boundary withholds from a server's listing", () => {
  test("tools --json lists the clean tool only; stderr names each rule and place, never the value; a call of one is refused naming it", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const r = await run(["tools", "--json", "--config", s.config, "--allow-run"], { cwd: s.ws, env: env(s.home) });
    expect([r.code, listed(r)]).toEqual([0, ["desc__clean"]]);
    for (const tool of HOSTILE) expect(r.stderr).toContain(NOTES[tool]!);
    noLeaks(r.stdout, r.stderr);

    const refused = await run(
      ["call", "desc__meta_key", "{}", "--config", s.config, "--allow-run", "--approve", "all"],
      { cwd: s.ws, env: env(s.home) },
    );
    expect([refused.code, json(refused).error_code, json(refused).message]).toEqual([
      1,
      "mcp.withheld",
      'desc__meta_key: withheld from the listing of MCP server "desc": what it declares breaks the output boundary (rule secret_key at $._meta.api_key, the value is not shown)',
    ]);
    const clean = await run(
      ["call", "desc__clean", '{"city":"Oslo"}', "--config", s.config, "--allow-run", "--approve", "all"],
      { cwd: s.ws, env: env(s.home) },
    );
    expect([clean.code, json(clean).payload]).toEqual([0, { content: [{ type: "text", text: "ran clean" }] }]);
    const log = await run(["log", "--json", "--last", "50", "--config", s.config], { cwd: s.ws, env: env(s.home) });
    noLeaks(refused.stdout, refused.stderr, log.stdout);
  }, 60_000);

  test("serve: the SDK's Client lists the clean tool only, and stderr says why the rest are not served", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serve(["--config", s.config, "--allow-run"], { cwd: s.ws, home: s.home });
    const { tools } = await served.client.listTools();
    expect(tools.filter((t) => t.name.startsWith("desc__")).map((t) => t.name)).toEqual(["desc__clean"]);
    const refused = await served.client.callTool({ name: "desc__pem_doc", arguments: {} });
    expect([refused.isError, (refused._meta as { toolgate: unknown }).toolgate]).toEqual([
      true,
      { status: "failed", error_code: "mcp.withheld" },
    ]);
    await served.close();
    for (const tool of HOSTILE) expect(served.stderr()).toContain(NOTES[tool]!);
    noLeaks(JSON.stringify(tools), JSON.stringify(refused), served.stderr());
  }, 60_000);

  test("serve --expose: the clean tool exactly as its server listed it, every field; the rest withheld the same way", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serve(["--config", s.config, "--allow-run", "--expose", "desc"], {
      cwd: s.ws,
      home: s.home,
    });
    const { tools } = await served.client.listTools();
    expect(tools).toEqual([TOOLS[0]!] as never);
    await served.close();
    for (const tool of HOSTILE) expect(served.stderr()).toContain(NOTES[tool]!);
    noLeaks(JSON.stringify(tools), served.stderr());
  }, 60_000);

  test("--allow-local-paths=desc lets the tool with a path through (tools, serve, serve --expose), and no other", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const flags = ["--config", s.config, "--allow-run", "--allow-local-paths=desc"];
    const r = await run(["tools", "--json", ...flags], { cwd: s.ws, env: env(s.home) });
    expect([r.code, listed(r)]).toEqual([0, ["desc__clean", "desc__shadow_title"]]);
    expect(r.stderr).not.toContain("shadow_title");
    for (const tool of ["pem_doc", "secret_default", "meta_key"]) expect(r.stderr).toContain(NOTES[tool]!);

    await using served = await serve(flags, { cwd: s.ws, home: s.home });
    expect(
      (await served.client.listTools()).tools.filter((t) => t.name.startsWith("desc__")).map((t) => t.name),
    ).toEqual(["desc__clean", "desc__shadow_title"]);
    await served.close();

    await using exposed = await serve([...flags, "--expose", "desc"], { cwd: s.ws, home: s.home });
    const { tools } = await exposed.client.listTools();
    expect(tools.map((t) => [t.name, t.annotations?.title])).toEqual([
      ["clean", "Clean tool"],
      ["shadow_title", LEAKS.path],
    ]);
    await exposed.close();
    expect(exposed.stderr()).not.toContain("shadow_title");
  }, 60_000);
});
