// End to end: tools from other sources are validated by the complete JSON Schema validator
// (ajv): a fixture server with pydantic-style `$defs`/`$ref`, a recursive model and draft-07
// `definitions`, and @modelcontextprotocol/server-sequential-thinking, each listed and called
// through dist/toolgate. Arguments go to the server exactly as given (no defaults filled in).
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, ROOT, run, tempDir, type RunResult } from "../helpers.ts";

const DEFS = join(import.meta.dir, "..", "fixtures", "mcp", "defs.ts");
const THINKING = join(ROOT, "node_modules", "@modelcontextprotocol", "server-sequential-thinking", "dist", "index.js");
const NODE = Bun.which("node") ?? "/usr/bin/node";
const GRANT = ["--allow-run", "--approve", "all"];
const lines = (r: RunResult) =>
  r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const config = (dir: string) =>
  writeFileSync(
    join(dir, "toolgate.json"),
    JSON.stringify({
      mcpServers: { defs: { command: process.execPath, args: [DEFS] }, think: { command: NODE, args: [THINKING] } },
    }),
  );
const got = (r: RunResult) => JSON.parse(json(r).payload.content[0].text);

describe("tools whose schemas use $ref, $defs, formats and draft-07", () => {
  test("are listed with their schemas as the server wrote them", async () => {
    await using dir = tempDir();
    config(dir.path);
    const r = await run(["tools", "--allow-run"], { cwd: dir.path });
    expect(r.code).toBe(0);
    const listed = lines(r).filter((d) => d.origin === "mcp:defs" || d.origin === "mcp:think");
    expect(listed.map((d) => d.name)).toEqual([
      "defs__contact",
      "defs__outline",
      "defs__search",
      "think__sequentialthinking",
    ]);
    const search = await run(["tools", "defs__search", "--allow-run", "--json"], { cwd: dir.path });
    expect(json(search).inputSchema.properties.q).toEqual({ $ref: "#/$defs/Query" });
  });

  test("valid arguments reach the server exactly as given", async () => {
    await using dir = tempDir();
    config(dir.path);
    const args = { q: { text: "rain", tags: null, since: "2026-11-30" } };
    const r = await run(["call", "defs__search", JSON.stringify(args), ...GRANT], { cwd: dir.path });
    expect([r.code, got(r)]).toEqual([0, { tool: "search", got: args }]);
    const tree = { root: { title: "a", children: [{ title: "b", children: [{ title: "c" }] }] } };
    const outline = await run(["call", "defs__outline", JSON.stringify(tree), ...GRANT], { cwd: dir.path });
    expect([outline.code, got(outline)]).toEqual([0, { tool: "outline", got: tree }]);
    const contact = await run(["call", "defs__contact", '{"to":"ann@example.org"}', ...GRANT], { cwd: dir.path });
    expect([contact.code, got(contact)]).toEqual([0, { tool: "contact", got: { to: "ann@example.org" } }]);
  });

  test.each([
    [
      "defs__search",
      { q: { text: "", since: "yesterday" }, limit: 0 },
      'q.text: must be at least length 1 (was 0); q.since: must match format "date"; q.since: must be null (was string); q.since: must match a schema in anyOf; limit: must be at least 1 (was 0)',
    ],
    ["defs__search", { q: "rain" }, "q: must be an object (was string)"],
    [
      "defs__outline",
      { root: { title: "a", children: [{ title: "b", colour: "red" }] } },
      "root.children.0.colour: must be removed",
    ],
    // An unknown key names the nearest one its schema declares there, through $ref and array items.
    [
      "defs__outline",
      { root: { title: "a", children: [{ title: "b", childern: [] }] } },
      'root.children.0.childern: must be removed (did you mean "children"?)',
    ],
    ["defs__contact", { to: "nobody" }, 'to: must match format "email"'],
  ])("%s refuses %j: args.invalid, exit 1", async (tool, args, message) => {
    await using dir = tempDir();
    config(dir.path);
    const r = await run(["call", tool, JSON.stringify(args), ...GRANT], { cwd: dir.path });
    expect([r.code, json(r).error_code, json(r).message]).toEqual([
      1,
      "args.invalid",
      `invalid arguments for ${tool}: ${message}`,
    ]);
  });

  test("server-sequential-thinking: a thought goes through, a bad one is refused", async () => {
    await using dir = tempDir();
    config(dir.path);
    const thought = { thought: "check the gauge", nextThoughtNeeded: false, thoughtNumber: 1, totalThoughts: 1 };
    const r = await run(["call", "think__sequentialthinking", JSON.stringify(thought), ...GRANT], { cwd: dir.path });
    expect([r.code, json(r).payload.structuredContent]).toEqual([
      0,
      { thoughtNumber: 1, totalThoughts: 1, nextThoughtNeeded: false, branches: [], thoughtHistoryLength: 1 },
    ]);
    const bad = await run(
      ["call", "think__sequentialthinking", JSON.stringify({ ...thought, thoughtNumber: 0 }), ...GRANT],
      { cwd: dir.path },
    );
    expect([bad.code, json(bad).message]).toEqual([
      1,
      "invalid arguments for think__sequentialthinking: thoughtNumber: must be at least 1 (was 0)",
    ]);
  });
});
