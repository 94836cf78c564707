// `serve --http` refused the 33rd session with 503 for 30 minutes when clients never
// ended theirs. Now: 40 SDK clients that never DELETE (each holding its GET stream open), then a
// 41st lists tools; the least recently used idle sessions made room, and their clients get 404
// and may initialize again. dist/toolgate in a loopback-only network namespace.
import { describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { tempDir } from "../helpers.ts";
import { inLoopbackNamespace } from "../http/netns.ts";
import { site } from "./client.ts";
import { connect, serveHttp } from "./http-client.ts";

inLoopbackNamespace(import.meta.path, () => {
  describe("serve --http never locks out", () => {
    test("40 never-ending sessions, then a 41st client lists tools; an ended session's client gets 404 and initializes again", async () => {
      await using root = tempDir();
      const s = site(root.path);
      await using served = await serveHttp(["--allow-read", "--approve", "file_read"], { cwd: s.ws, home: s.home });
      const clients: Client[] = [];
      try {
        for (let i = 0; i < 40; i++) clients.push(await connect(served.url, { token: served.token }));
        const last = await connect(served.url, { token: served.token });
        clients.push(last);
        expect((await last.listTools()).tools.map((t) => t.name)).toContain("file_read");
        // The first sessions were the least recently used: ended to make room (the server said so).
        await expect(clients[0]!.listTools()).rejects.toMatchObject({ code: 404 });
        expect(served.stderr()).toContain(
          "an idle session was ended to make room (at most 32 at once); its client initializes again",
        );
        // That client comes back with a new session, and the most recent ones were kept.
        const back = await connect(served.url, { token: served.token });
        clients.push(back);
        expect((await back.callTool({ name: "file_read", arguments: { path: "a.txt" } })).isError).toBeUndefined();
        expect((await clients[39]!.listTools()).tools.length).toBeGreaterThan(0);
      } finally {
        await Promise.all(clients.map((c) => c.close().catch(() => {})));
      }
      expect(await served.stop()).toBe(0);
    }, 120_000);
  });
});
