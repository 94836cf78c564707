// Supervision as a user of dist/toolgate serve sees it: a killed child's exit and restart on
// stderr and in the journal (`toolgate log`), calls while it restarts refused mcp.restarting with a
// journal row each, a restarted child listing another descriptor withheld from tools/list and
// refused descriptor_changed, and after the client leaves no child of any life is left running.
import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { waitUntil } from "../../src/launcher/end-tree.ts";
import { ROOT, run, tempDir } from "../helpers.ts";
import { serve } from "./client.ts";

const MORTAL = join(ROOT, "test", "fixtures", "mcp", "mortal.ts");
const alive = (pid: number) =>
  existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.startsWith("Z");
const lines = (path: string) => (existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : []);

/** A workspace whose config declares the mortal fixture as the required server "fx", and a HOME beside it. */
function site(root: string) {
  const ws = join(root, "ws");
  const home = join(root, "home");
  mkdirSync(ws);
  mkdirSync(home);
  const args = [
    MORTAL,
    `--pids-out=${root}/pids`,
    `--calls-out=${root}/calls`,
    `--variant=${root}/variant`,
    `--die-at-start=${root}/die`,
  ];
  writeFileSync(
    join(ws, "toolgate.json"),
    JSON.stringify({ mcpServers: { fx: { command: process.execPath, args, required: true } } }),
  );
  return { ws, home, pids: join(root, "pids"), variant: join(root, "variant"), die: join(root, "die") };
}

describe("serve supervises its children", () => {
  test("a killed child: its exit and restart on stderr and in the journal; after the client leaves, no child of any life runs", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const served = await serve(["--allow-run", "--approve", "all"], { cwd: s.ws, home: s.home });
    // Started at once (required), before any call.
    expect(lines(s.pids).length).toBe(1);
    const first = Number(lines(s.pids)[0]);
    process.kill(first, "SIGKILL");
    expect(await waitUntil(() => served.stderr().includes("restarted"), 15_000)).toBe(true);
    const second = Number(lines(s.pids)[1]);
    expect(served.stderr()).toContain(
      `MCP server "fx" was killed by a signal; restarting in 0.5 s (restart 1 of at most 5)\n`,
    );
    expect(served.stderr()).toContain(`MCP server "fx" restarted (pid ${second})\n`);
    expect((await served.client.callTool({ name: "fx__echo", arguments: { message: "back" } })).content).toEqual([
      { type: "text", text: "back" },
    ]);
    await served.close();
    expect(await waitUntil(() => !alive(served.pid), 15_000)).toBe(true);
    expect(lines(s.pids).map(Number).filter(alive)).toEqual([]);
    const rows = (await run(["log", "--json"], { cwd: s.ws, env: { HOME: s.home } })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const servers = rows
      .filter((r) => String(r.event).startsWith("server_"))
      .map((r) => [r.event, r.tool, r.status, r.error_code]);
    expect(servers).toEqual([
      ["server_started", "mcp.connect:fx", "started", null],
      ["server_exited", "mcp.connect:fx", "exited", "mcp.exited"],
      ["server_restarted", "mcp.connect:fx", "restarted", null],
    ]);
  }, 40_000);

  test("killed twice under load: every call while it restarts is refused mcp.restarting and has its journal row", async () => {
    await using root = tempDir();
    const s = site(root.path);
    const served = await serve(["--allow-run", "--approve", "all"], { cwd: s.ws, home: s.home });
    const echo = (message: string) => served.client.callTool({ name: "fx__echo", arguments: { message } });
    const count = (text: string) => served.stderr().split(text).length - 1;
    const refused: unknown[] = [];
    for (const life of [1, 2]) {
      expect((await echo(`up ${life}`)).content).toEqual([{ type: "text", text: `up ${life}` }]);
      // Each restart fails until the test lets it come back: the window stays open while it calls.
      writeFileSync(s.die, "");
      process.kill(Number(lines(s.pids).at(-1)), "SIGKILL");
      expect(await waitUntil(() => count("was killed by a signal; restarting") === life, 15_000)).toBe(true);
      const during = await Promise.all(Array.from({ length: 5 }, (_, i) => echo(`during ${life}.${i}`)));
      refused.push(...during.map((r) => r._meta));
      rmSync(s.die);
      expect(await waitUntil(() => count(`MCP server "fx" restarted`) === life, 20_000)).toBe(true);
    }
    expect((await echo("back")).content).toEqual([{ type: "text", text: "back" }]);
    expect(refused).toEqual(Array(10).fill({ toolgate: { status: "failed", error_code: "mcp.restarting" } }));
    await served.close();
    expect(await waitUntil(() => !alive(served.pid), 15_000)).toBe(true);
    const db = new Database(join(s.ws, ".toolgate", "toolgate.db"), { readonly: true });
    try {
      const rows = db
        .query(
          "SELECT event, status, error_code, count(*) AS n FROM journal WHERE tool = 'fx__echo' GROUP BY event, status, error_code ORDER BY n",
        )
        .all();
      expect(rows).toEqual([
        { event: "tool_finished", status: "success", error_code: null, n: 3 },
        { event: "tool_finished", status: "failed", error_code: "mcp.restarting", n: 10 },
      ]);
    } finally {
      db.close();
    }
    // None of them reached the server.
    expect(lines(join(root.path, "calls"))).toEqual(["echo", "echo", "echo"]);
  }, 60_000);

  test("a restarted child listing another descriptor: that tool leaves tools/list (list_changed) and a call by name is refused descriptor_changed", async () => {
    await using root = tempDir();
    const s = site(root.path);
    await using served = await serve(["--allow-run", "--approve", "all"], { cwd: s.ws, home: s.home });
    let changed = 0;
    served.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    const names = async () =>
      (await served.client.listTools()).tools
        .map((t) => t.name)
        .filter((n) => n.startsWith("fx__"))
        .sort();
    expect(await names()).toEqual(["fx__die", "fx__echo", "fx__slow"]);
    writeFileSync(s.variant, "v2");
    const died = await served.client.callTool({ name: "fx__die", arguments: {} });
    expect(died._meta).toEqual({ toolgate: { status: "indeterminate", error_code: "transport_lost" } });
    expect(await waitUntil(() => served.stderr().includes("withheld as changed: fx__echo"), 15_000)).toBe(true);
    // Down, then back without fx__echo: told each time.
    expect(await waitUntil(() => changed >= 2, 5_000)).toBe(true);
    expect(await names()).toEqual(["fx__die", "fx__slow"]);
    const refused = await served.client.callTool({ name: "fx__echo", arguments: { message: "x", loud: true } });
    expect(refused.isError).toBe(true);
    expect(refused._meta).toMatchObject({ toolgate: { error_code: "descriptor_changed" } });
    expect(lines(join(root.path, "calls"))).toEqual(["die"]);
  }, 40_000);
});
