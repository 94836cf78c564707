// End to end (the compiled binary): a server that does not answer `initialize` within its connect
// timeout is told so naming the key that sets it, at discovery and when a call starts it from the
// cached catalog; a package runner's first start is said to need longer.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "las", "server.ts");

/** A workspace with a trusted --config beside it, and a bin folder (on the caller's PATH) for the server's command. */
function site(root: string, server: Record<string, unknown>) {
  const ws = join(root, "ws");
  const bin = join(root, "bin");
  mkdirSync(ws);
  mkdirSync(bin);
  const cfg = join(root, "toolgate.json");
  writeFileSync(cfg, JSON.stringify({ mcpServers: { slow: { connect_timeout_secs: 1, ...server } } }));
  const toolgate = (args: string[]) =>
    run([...args, "--config", cfg, "--allow-run", "--approve", "all"], {
      cwd: ws,
      env: { PATH: `${bin}:/usr/bin:/bin`, HOME: root },
    });
  return { bin, toolgate };
}

describe("a connect timeout", () => {
  test("names mcpServers.NAME.connect_timeout_secs; for npx, that a first start may need longer", async () => {
    await using d = tempDir();
    const s = site(d.path, { command: "npx", args: ["-y", "some-mcp-server"] });
    // An npx that never answers, as one still installing and building the package.
    writeFileSync(join(s.bin, "npx"), "#!/bin/sh\nexec sleep 30\n", { mode: 0o755 });
    const started = Date.now();
    const r = await s.toolgate(["tools"]);
    expect(r.stderr).toContain(
      'mcp:slow failed: no answer within the connect timeout (1 s); raise mcpServers.slow.connect_timeout_secs: a first `npx` start downloads (and may build) the package before the server answers and can need longer, e.g. "connect_timeout_secs": 120',
    );
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  test("another command: the key, no word about npx", async () => {
    await using d = tempDir();
    const s = site(d.path, { command: "mute-server" });
    writeFileSync(join(s.bin, "mute-server"), "#!/bin/sh\nexec sleep 30\n", { mode: 0o755 });
    const r = await s.toolgate(["tools"]);
    expect(r.stderr).toContain(
      "mcp:slow failed: no answer within the connect timeout (1 s); raise mcpServers.slow.connect_timeout_secs\n",
    );
  });

  test("a call that starts the server from the cached catalog says the same (the SDK's own timeout)", async () => {
    await using d = tempDir();
    const marker = join(d.path, "started-once");
    // Answers the first time (tools lists and caches it), then never again.
    const s = site(d.path, { command: "flaky-server" });
    writeFileSync(
      join(s.bin, "flaky-server"),
      `#!/bin/sh\nif [ -e ${marker} ]; then exec sleep 30; fi\n: > ${marker}\nexec ${process.execPath} ${FIXTURE}\n`,
      { mode: 0o755 },
    );
    const listed = await s.toolgate(["tools"]);
    expect(listed.code).toBe(0);
    const r = await s.toolgate(["call", "slow__echo__echo", '{"message":"hi"}']);
    expect(r.code).toBe(1);
    expect(json(r)).toMatchObject({
      error_code: "mcp.connect_failed",
      message:
        'cannot reach MCP server "slow": no answer within the connect timeout (1 s); raise mcpServers.slow.connect_timeout_secs',
    });
  });
});
