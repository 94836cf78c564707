// End to end: a server's command found on the caller's PATH only (a temp folder, as
// ~/.local/bin or ~/.bun/bin are), the child's fixed PATH with that folder before it, and
// inherit_env passing named variables through; seen from a loopback listener.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BASE_ENV } from "../../src/launcher/env.ts";
import { json, run, tempDir } from "../helpers.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "mcp", "vars.ts");
const GRANT = ["--approve", "all"];
let listener: ReturnType<typeof Bun.serve>;
const reports: { args: string[]; env: Record<string, string> }[] = [];
beforeAll(() => {
  listener = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (req) => (reports.push((await req.json()) as (typeof reports)[number]), new Response("ok")),
  });
});
afterAll(() => listener.stop(true));

/** bin/mcp-here execs bin/mcp-helper by name: it starts only if its own folder is on the child's PATH. */
function install(dir: string): string {
  const bin = join(dir, "bin");
  mkdirSync(bin);
  writeFileSync(join(bin, "mcp-here"), '#!/bin/sh\nexec mcp-helper "$@"\n');
  writeFileSync(join(bin, "mcp-helper"), `#!/bin/sh\nexec ${process.execPath} ${FIXTURE} "$@"\n`);
  chmodSync(join(bin, "mcp-here"), 0o755);
  chmodSync(join(bin, "mcp-helper"), 0o755);
  return bin;
}

describe("commands on the caller's PATH", () => {
  test("found there, named by --allow-run, started with its folder before the fixed PATH; inherit_env needs --allow-env", async () => {
    await using dir = tempDir();
    const bin = install(dir.path);
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({
        mcpServers: {
          here: {
            command: "mcp-here",
            args: [`http://127.0.0.1:${listener.port}/report`],
            inherit_env: ["HOME", "MY_SETTING"],
          },
        },
      }),
    );
    const env = { PATH: `${bin}:/usr/bin:/bin`, MY_SETTING: "kept" };
    reports.length = 0;
    const norun = await run(["call", "here__argv", "{}", ...GRANT], { cwd: dir.path, env });
    expect([norun.code, json(norun).details]).toEqual([
      4,
      { flag: `--allow-run=${join(bin, "mcp-here")}`, flags: [`--allow-run=${join(bin, "mcp-here")}`] },
    ]);
    const noenv = await run(["call", "here__argv", "{}", ...GRANT, "--allow-run=mcp-here"], { cwd: dir.path, env });
    expect([noenv.code, json(noenv).details]).toEqual([4, { flag: "--allow-env=HOME", flags: ["--allow-env=HOME"] }]);
    expect(reports).toEqual([]);
    const r = await run(
      ["call", "here__argv", "{}", ...GRANT, "--allow-run=mcp-here", "--allow-env=HOME", "--allow-env=MY_SETTING"],
      { cwd: dir.path, env },
    );
    expect([r.code, json(r).status]).toEqual([0, "success"]);
    const got = reports[0]!.env;
    expect({ PATH: got.PATH, HOME: got.HOME, MY_SETTING: got.MY_SETTING }).toEqual({
      PATH: `${bin}:${BASE_ENV.PATH}`,
      HOME: dir.path,
      MY_SETTING: "kept",
    });
  });

  test("a command on no PATH folder: the server fails saying where it looked, the boot goes on", async () => {
    await using dir = tempDir();
    const bin = install(dir.path);
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({ mcpServers: { gone: { command: "no-such-mcp-server" } } }),
    );
    const r = await run(["tools", "--allow-run"], { cwd: dir.path, env: { PATH: `${bin}:/usr/bin:/bin` } });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `"no-such-mcp-server" was not found on PATH (looked in ${bin}, /usr/bin, /bin, /usr/sbin, /sbin, /opt/homebrew/bin, /usr/local/bin)`,
    );
  });
});
