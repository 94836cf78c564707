// toolgate as an HTTP MCP client ends the sessions it opens (DELETE, as the Python SDK does): a
// one-shot call (its DELETE sent by the detached reaper, off the caller's path), `tools --refresh`,
// `serve` when it stops, and a warm session when it stops. A server that answers DELETE with 405
// is fine. Through dist/toolgate against a stateful loopback server, in a loopback-only namespace.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sessionsServer } from "../fixtures/mcp/http-sessions.ts";
import { json, run, tempDir } from "../helpers.ts";
import { inLoopbackNamespace } from "../http/netns.ts";
import { serve } from "../serve/client.ts";

inLoopbackNamespace(import.meta.path, () => {
  // The workspace is <dir>/ws and HOME <dir>/home beside it: a session's socket may not lie in the workspace.
  const ws = (dir: string) => join(dir, "ws");
  const workspace = (dir: string, url: string) => {
    mkdirSync(ws(dir));
    writeFileSync(
      join(ws(dir), "toolgate.json"),
      JSON.stringify({ mcpServers: { web: { type: "http", url, headers: { "X-Api-Key": "k-123" } } } }),
    );
  };
  const grant = (port: number) => [`--allow-net=127.0.0.1:${port}`, "--approve", "all"];
  const env = (dir: string) => ({ HOME: join(dir, "home"), XDG_STATE_HOME: join(dir, "home", ".user-state") });

  describe("an HTTP MCP session ends when toolgate is done with it", () => {
    test("one `toolgate call` leaves zero live sessions: the reaper sends the DELETE with the session's headers", async () => {
      await using web = sessionsServer();
      await using dir = tempDir();
      workspace(dir.path, web.url);
      const r = await run(["call", "web__echo", '{"text":"hi"}', ...grant(web.port)], {
        cwd: ws(dir.path),
        env: env(dir.path),
      });
      expect([r.code, json(r)]).toEqual([
        0,
        { status: "success", tool: "web__echo", payload: { content: [{ type: "text", text: "hi" }] } },
      ]);
      expect(await web.until(() => web.deletes.length === 1 && web.live() === 0)).toBe(true);
      expect({
        opened: web.opened(),
        live: web.live(),
        deletes: web.deletes.map((d) => [d.status, d.key, d.version]),
      }).toEqual({ opened: 1, live: 0, deletes: [[200, "k-123", "2025-11-25"]] });
    });

    test("one `toolgate tools --refresh` leaves zero live sessions, ended before it exits", async () => {
      await using web = sessionsServer();
      await using dir = tempDir();
      workspace(dir.path, web.url);
      const r = await run(["tools", "--refresh", "--json", `--allow-net=127.0.0.1:${web.port}`], {
        cwd: ws(dir.path),
        env: env(dir.path),
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('"name":"web__echo"');
      expect({ opened: web.opened(), live: web.live(), deletes: web.deletes.map((d) => d.status) }).toEqual({
        opened: 1,
        live: 0,
        deletes: [200],
      });
    });

    test("a server that answers DELETE with 405 is fine: the call succeeds and says nothing of it", async () => {
      await using web = sessionsServer({ deleteStatus: 405 });
      await using dir = tempDir();
      workspace(dir.path, web.url);
      const r = await run(["call", "web__echo", '{"text":"x"}', ...grant(web.port)], {
        cwd: ws(dir.path),
        env: env(dir.path),
      });
      expect([r.code, r.stderr]).toEqual([0, ""]);
      expect(await web.until(() => web.deletes.length === 1)).toBe(true);
      const t = await run(["tools", "--refresh", "--json", `--allow-net=127.0.0.1:${web.port}`], {
        cwd: ws(dir.path),
        env: env(dir.path),
      });
      expect([t.code, t.stderr.includes("405"), web.deletes.map((d) => d.status)]).toEqual([0, false, [405, 405]]);
    });

    test("serve over stdio ends its upstream session when it stops", async () => {
      await using web = sessionsServer();
      await using root = tempDir();
      workspace(root.path, web.url);
      {
        await using served = await serve(grant(web.port), { cwd: ws(root.path), home: join(root.path, "home") });
        const r = await served.client.callTool({ name: "web__echo", arguments: { text: "via serve" } });
        expect(r.isError).toBeUndefined();
        expect(web.live()).toBe(1);
      }
      expect(await web.until(() => web.live() === 0)).toBe(true);
      expect(web.deletes.map((d) => d.status)).toEqual([200]);
    });

    test("a warm session keeps one upstream session across calls and ends it when it stops", async () => {
      await using web = sessionsServer();
      await using dir = tempDir();
      workspace(dir.path, web.url);
      const start = await run(["session", "start", "--idle-secs", "60"], { cwd: ws(dir.path), env: env(dir.path) });
      expect(start.code).toBe(0);
      try {
        for (const text of ["one", "two"]) {
          const r = await run(["call", "web__echo", JSON.stringify({ text }), ...grant(web.port)], {
            cwd: ws(dir.path),
            env: env(dir.path),
          });
          expect([r.code, json(r).payload]).toEqual([0, { content: [{ type: "text", text }] }]);
        }
        expect({ opened: web.opened(), live: web.live() }).toEqual({ opened: 1, live: 1 });
      } finally {
        expect((await run(["session", "stop"], { cwd: ws(dir.path), env: env(dir.path) })).code).toBe(0);
      }
      expect(await web.until(() => web.live() === 0)).toBe(true);
      expect(web.deletes.map((d) => d.status)).toEqual([200]);
    });
  });
});
