// End to end: `toolgate doctor` on this machine: each check a line (✓ ✗ ! ·) with its fix, exit 1
// only when something the configuration needs is missing; --json. bubblewrap is hidden (as root,
// in a mount namespace of its own) to see the product mode fail; servers are started only with a
// grant; the telemetry endpoint is a real HTTP server on port 0.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, run, tempDir } from "../helpers.ts";

const MORTAL = join(import.meta.dir, "..", "fixtures", "mcp", "mortal.ts");
const checks = (out: string) =>
  Object.fromEntries(
    (JSON.parse(out).checks as { check: string; status: string; detail: string; fix?: string }[]).map((c) => [
      c.check,
      c,
    ]),
  );
const asRoot = process.getuid?.() === 0;

describe("toolgate doctor", () => {
  test("a plain folder: every check passes or says it is not used; --json is the same checks", async () => {
    await using ws = tempDir();
    const r = await run(["doctor", "--json"], { cwd: ws.path });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ ok: true, workspace: ws.path });
    const c = checks(r.stdout);
    expect(Object.keys(c)).toEqual([
      "config",
      "bubblewrap",
      "user namespaces",
      "sandbox off",
      "sandbox product",
      "sandbox bench",
      "state folder",
      "user state folder",
      "servers",
      "telemetry",
    ]);
    expect(c.config).toMatchObject({ status: "ok", detail: expect.stringContaining("the embedded default") });
    expect(c["sandbox off"]!.detail).toContain("(configured: sandbox, from default)");
    expect(c.servers).toMatchObject({ status: "info", detail: "none configured (mcpServers, las)" });
    expect(c.telemetry).toMatchObject({ status: "info" });
    expect(c["state folder"]).toMatchObject({
      status: "ok",
      detail: expect.stringContaining(join(ws.path, ".toolgate")),
    });
  });

  test("on a terminal: one line a check with its mark, the fix under a problem, and a verdict", async () => {
    await using ws = tempDir();
    writeFileSync(join(ws.path, "toolgate.json"), "{ not json");
    const { onTerminal } = await import("../helpers.ts");
    const r = await onTerminal(["doctor"], 100, ws.path);
    expect(r.code).toBe(1);
    expect(r.lines[0]).toStartWith("toolgate ");
    expect(r.lines.find((l) => l.startsWith("✗ config"))).toBeDefined();
    expect(r.lines.find((l) => l.startsWith("✓ sandbox off"))).toBeDefined();
    expect(r.lines.find((l) => l.startsWith("· servers"))).toContain("not checked: the config does not boot");
    expect(r.lines.at(-1)).toBe("1 problem (✗): something the configuration needs is missing");
    for (const l of r.lines) expect(Bun.stringWidth(l)).toBeLessThanOrEqual(100);
  });

  test("an untrusted config that would widen fails, naming the keys and toolgate trust", async () => {
    await using ws = tempDir();
    writeFileSync(join(ws.path, "toolgate.json"), JSON.stringify({ permissions: { allow: { read: true } } }));
    const r = await run(["doctor"], { cwd: ws.path });
    expect(r.code).toBe(1);
    expect(checks(r.stdout).config).toMatchObject({
      status: "fail",
      detail: expect.stringContaining("permissions.allow"),
      fix: `review it, then toolgate trust ${join(ws.path, "toolgate.json")}`,
    });
  });

  test.skipIf(!asRoot)(
    "the config asks for the product sandbox and bubblewrap is missing: ✗ with the fix, exit 1; asked for off, the same is only a warning",
    async () => {
      await using ws = tempDir();
      const hidden = (args: string[]) => {
        const p = Bun.spawnSync(
          [
            "unshare",
            "-m",
            "sh",
            "-c",
            `mount --bind /dev/null "$(command -v bwrap)" && exec "$@"`,
            "sh",
            BIN,
            ...args,
          ],
          { cwd: ws.path, env: { PATH: "/usr/bin:/bin", HOME: ws.path, CI: "true" } },
        );
        return { code: p.exitCode, stdout: p.stdout.toString(), stderr: p.stderr.toString() };
      };
      const off = hidden(["doctor", "--json"]);
      expect({ code: off.code, err: off.stderr }).toEqual({ code: 0, err: "" });
      expect(checks(off.stdout).bubblewrap).toMatchObject({ status: "warn", fix: "apt-get install -y bubblewrap" });
      expect(checks(off.stdout)["sandbox product"]!.status).toBe("warn");
      writeFileSync(join(ws.path, "toolgate.json"), JSON.stringify({ sandbox: "product" }));
      const product = hidden(["doctor", "--json"]);
      expect(product.code).toBe(1);
      const c = checks(product.stdout);
      expect(c.bubblewrap).toMatchObject({ status: "fail", detail: expect.stringContaining("not found") });
      expect(c["sandbox product"]).toMatchObject({
        status: "fail",
        detail: expect.stringContaining("(configured: sandbox, from file:"),
        fix: expect.stringContaining("install bubblewrap"),
      });
      expect(c["sandbox bench"]!.status).toBe("warn");
    },
  );

  test("servers: started and listed with a grant; without one named, not started (!); one that fails ✗", async () => {
    await using ws = tempDir();
    writeFileSync(
      join(ws.path, "toolgate.json"),
      JSON.stringify({
        mcpServers: {
          m: { command: process.execPath, args: [MORTAL] },
          broken: { command: "/bin/false", connect_timeout_secs: 5 },
        },
      }),
    );
    const ungranted = await run(["doctor", "--json"], { cwd: ws.path });
    const u = checks(ungranted.stdout);
    expect(u["mcp:m"]).toMatchObject({
      status: "warn",
      detail: expect.stringContaining("not started"),
      fix: expect.stringContaining("run toolgate doctor --allow-run"),
    });
    const granted = await run(["doctor", "--json", "--allow-run"], { cwd: ws.path });
    const g = checks(granted.stdout);
    expect(g["mcp:m"]).toMatchObject({ status: "ok", detail: "started and listed 3 tools" });
    expect(g["mcp:broken"]!.status).toBe("fail");
    expect(granted.code).toBe(1);
  });

  test("telemetry: an endpoint that accepts an empty export ✓; one that refuses it or is not there ✗", async () => {
    await using ws = tempDir();
    const seen: string[] = [];
    using collector = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (req) => (
        seen.push(`${req.method} ${new URL(req.url).pathname} ${req.headers.get("authorization")}`),
        new Response(new URL(req.url).pathname === "/v1/traces" ? "" : "no", {
          status: new URL(req.url).pathname === "/v1/traces" ? 200 : 404,
        })
      ),
    });
    const env = {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}`,
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20k",
    };
    const good = await run(["doctor", "--json"], { cwd: ws.path, env });
    expect([good.code, checks(good.stdout).telemetry!.status]).toEqual([0, "ok"]);
    expect(seen).toEqual(["POST /v1/traces Bearer k"]);
    const wrong = await run(["doctor", "--json"], {
      cwd: ws.path,
      env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${collector.port}/elsewhere` },
    });
    expect([wrong.code, checks(wrong.stdout).telemetry!.detail]).toEqual([1, expect.stringContaining("answered 404")]);
    const gone = await run(["doctor", "--json"], {
      cwd: ws.path,
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" },
    });
    expect([gone.code, checks(gone.stdout).telemetry!.detail]).toEqual([1, expect.stringContaining("unreachable")]);
  });

  test("an argument is a usage error (exit 2)", async () => {
    await using ws = tempDir();
    const r = await run(["doctor", "now"], { cwd: ws.path });
    expect([r.code, r.stderr]).toEqual([
      2,
      'toolgate: unexpected argument "now"\n  hint: toolgate doctor [--json] [--allow-run ...]\n',
    ]);
  });
});
