// One non-required MCP server listing a bad or colliding tool name
// made every call exit 5. Now its tools are withheld with the reason, which `tools` shows, calls
// of them are refused naming it, and everything else works; Las and `required` servers still
// fail the boot.
import { beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, tempDir, type RunResult } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const FIXTURE = join(import.meta.dir, "..", "fixtures", "las", "server.ts");
const GRANT = ["--allow-run", "--approve", "all"];
const server = (...flags: string[]) => ({ command: process.execPath, args: [FIXTURE, ...flags] });
const names = (r: RunResult) =>
  r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l).name as string);

async function setup(ws: string, servers: Record<string, unknown>) {
  const config = join(ws, "toolgate.json");
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  writeFileSync(join(ws, "a.txt"), "hello\n");
  const listed = await run(["tools", "--json", "--config", config, "--allow-run"], { cwd: ws });
  return { config, listed };
}

describe("a non-required server with a bad or colliding tool name is withheld, not fatal", () => {
  test.each([
    [
      "a name listed twice",
      { bad: server("--duplicate"), good: server() },
      ["bad"],
      /mcp:bad withheld .*"bad__echo__echo" has the same name as another of its own tools/,
    ],
    [
      "a non-object schema",
      { bad: server("--non-object-schema"), good: server() },
      ["bad"],
      /mcp:bad withheld .*"bad__echo__weird" has an input schema that is not a JSON object schema/,
    ],
    [
      "two servers whose names collide after normalization",
      { "x-y": server(), x_y: server(), good: server() },
      ["x-y", "x_y"],
      /mcp:x-y withheld .*same name as a tool from mcp:x_y/,
    ],
  ])("%s: tools lists the rest and says why; calls of the rest work", async (_what, servers, withheld, reason) => {
    await using ws = tempDir();
    const { config, listed } = await setup(ws.path, servers);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toMatch(reason);
    expect(names(listed)).toContain("good__echo__echo");
    for (const w of withheld) expect(names(listed).some((n) => n.startsWith(`${w}__`))).toBe(false);
    const good = await run(["call", "good__echo__echo", '{"message":"hi"}', "--config", config, ...GRANT], {
      cwd: ws.path,
    });
    expect([good.code, json(good).status]).toEqual([0, "success"]);
    const builtin = await run(["call", "file_read", '{"path":"a.txt"}', "--config", config, "--allow-read", ...GRANT], {
      cwd: ws.path,
    });
    expect([builtin.code, json(builtin).status]).toEqual([0, "success"]);
    const refused = await run(
      ["call", `${withheld[0]}__echo__echo`, '{"message":"hi"}', "--config", config, ...GRANT],
      { cwd: ws.path },
    );
    expect([refused.code, json(refused).error_code]).toEqual([1, "mcp.withheld"]);
    expect(json(refused).message).toMatch(/withheld/);
  });

  test("the same server with required: true still fails the boot (exit 5)", async () => {
    await using ws = tempDir();
    const { listed } = await setup(ws.path, { bad: { ...server("--duplicate"), required: true }, good: server() });
    expect(listed.code).toBe(5);
    expect(listed.stderr).toContain(
      'tool name collision: "bad__echo__echo" from mcp:bad and "bad__echo__echo" from mcp:bad',
    );
  });

  test("a tool name MCP allows but clients do not (a space) is mapped, not withheld, required or not", async () => {
    await using ws = tempDir();
    const mapped = `bad__echo__bad_name_${createHash("sha256").update("echo__bad name").digest("hex").slice(0, 8)}`;
    for (const required of [false, true]) {
      const { config, listed } = await setup(ws.path, { bad: { ...server("--bad-name"), required }, good: server() });
      expect([listed.code, names(listed).includes(mapped), listed.stderr.includes("withheld")]).toEqual([
        0,
        true,
        false,
      ]);
      // The fixture answers a name it has no case for with an error naming it: the server got its own name.
      const r = await run(["call", mapped, "{}", "--config", config, ...GRANT], { cwd: ws.path });
      expect([json(r).error_code, json(r).message]).toEqual(["remote_tool", "unknown tool echo__bad name"]);
    }
  });
});
