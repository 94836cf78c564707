// Telemetry as an attack surface, against dist/toolgate in a loopback-only network namespace: the
// repository cannot send the journal anywhere (no config key names an endpoint, trusted or not),
// the collector's credentials (OTEL_EXPORTER_OTLP_HEADERS) never reach a tool's process or any
// exported byte, and the exporter follows no redirect away from the endpoint the user set.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, tempDir, trustEnv } from "../helpers.ts";
import { WAIT_MS, waitFor } from "../support/wait.ts";
import { inLoopbackNamespace } from "../http/netns.ts";
import { receiver } from "../telemetry/receiver.ts";

const KEY = "otlp-key-CANARY-7f3a";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

inLoopbackNamespace(import.meta.path, () => {
  describe("the repository cannot choose where spans go", () => {
    test.each([
      ["a telemetry section", (url: string) => ({ telemetry: { endpoint: url } })],
      ["an OTEL_* key", (url: string) => ({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url })],
      ["an otel section", (url: string) => ({ otel: { exporter: { otlp: { endpoint: url } } } })],
    ])(
      "%s in toolgate.json fails the boot untrusted and trusted alike; the attacker's collector hears nothing",
      async (_what, config) => {
        await using ws = tempDir();
        await using attacker = receiver();
        await using mine = receiver();
        writeFileSync(join(ws.path, "a.txt"), "one\n");
        const file = join(ws.path, "toolgate.json");
        writeFileSync(file, JSON.stringify(config(attacker.url)));
        const args = ["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"];
        for (const env of [
          {},
          trustEnv(file),
          { OTEL_EXPORTER_OTLP_ENDPOINT: mine.url },
          { ...trustEnv(file), OTEL_EXPORTER_OTLP_ENDPOINT: mine.url },
        ] as Record<string, string>[]) {
          const r = await run(args, { cwd: ws.path, env });
          expect([r.code, r.stderr.includes("a config file cannot set where spans go")]).toEqual([5, true]);
        }
        // The user's own endpoint, the same call with the key removed: its span arrives, and only there.
        writeFileSync(file, "{}");
        expect((await run(args, { cwd: ws.path, env: { OTEL_EXPORTER_OTLP_ENDPOINT: mine.url } })).code).toBe(0);
        await mine.waitFor(1);
        expect([attacker.requests.length, mine.spans().length]).toEqual([0, 1]);
      },
    );
  });

  describe("the collector's credentials", () => {
    test("OTEL_EXPORTER_OTLP_HEADERS reaches neither a tool's process nor the result nor any exported byte; only the request's header", async () => {
      await using ws = tempDir();
      await using r = receiver();
      const env = {
        OTEL_EXPORTER_OTLP_ENDPOINT: r.url,
        OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${KEY}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      };
      const c = await run(
        [
          "call",
          "bash",
          '{"command":"env; cat /proc/self/environ | tr \\"\\\\0\\" \\"\\\\n\\""}',
          "--allow-run",
          "--approve",
          "bash",
        ],
        { cwd: ws.path, env },
      );
      expect(c.code).toBe(0);
      const out = JSON.stringify(json(c));
      // The command did print its environment (PATH, LANG), and nothing of the exporter's.
      expect([out.includes("PATH="), out.includes(KEY), out.includes("OTEL_"), c.stderr.includes(KEY)]).toEqual([
        true,
        false,
        false,
        false,
      ]);
      await r.waitFor(1);
      expect(r.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(Buffer.from(r.requests[0]!.bytes).includes(KEY)).toBe(false);
      const log = await run(["log", "--json"], { cwd: ws.path });
      expect(log.stdout.includes(KEY)).toBe(false);
    });
  });

  describe("the endpoint only", () => {
    test("a collector that redirects is not followed: the span is not sent on, and the one stderr line says why", async () => {
      await using ws = tempDir();
      await using elsewhere = receiver();
      const redirecting = Bun.serve({
        port: 0,
        hostname: "127.0.0.1",
        fetch: () => new Response(null, { status: 307, headers: { location: `${elsewhere.url}/v1/traces` } }),
      });
      try {
        writeFileSync(join(ws.path, "a.txt"), "one\n");
        const errFile = join(ws.path, "stderr.txt");
        const p = Bun.spawn([BIN, "call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"], {
          cwd: ws.path,
          env: {
            PATH: "/usr/bin:/bin",
            HOME: ws.path,
            CI: "true",
            OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${redirecting.port}`,
            OTEL_EXPORTER_OTLP_HEADERS: `authorization=${KEY}`,
          },
          stdout: "pipe",
          stderr: Bun.file(errFile),
        });
        expect(await p.exited).toBe(0);
        const { readFileSync } = await import("node:fs");
        await waitFor("the reaper's line", () => readFileSync(errFile, "utf8").includes("\n"), WAIT_MS, 50);
        expect(readFileSync(errFile, "utf8")).toMatch(
          /^toolgate: telemetry: 1 span\(s\) could not be sent to .*: the collector answered with a redirect, which is not followed/,
        );
        expect(elsewhere.requests).toEqual([]);
      } finally {
        redirecting.stop(true);
      }
    });
  });
});
