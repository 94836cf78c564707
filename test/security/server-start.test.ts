// What a server or Las is started with, as an attacker would aim it: an untrusted config's MCP
// server `cwd` outside the workspace (a server ran in /etc), and the parent's SKARBIEC_* tokens
// handed to Las (it gets the capability paths only). Against the compiled binary.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BIN, run, tempDir } from "../helpers.ts";

const STATE = mkdtempSync(join(tmpdir(), "toolgate-start-state-"));
afterAll(() => rmSync(STATE, { recursive: true, force: true }));
beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});
const env = { XDG_STATE_HOME: STATE };

/** A stdio "server" that only records the folder it was started in, then exits. */
function recorder(ws: string): { script: string; marker: string } {
  const script = join(ws, "server.sh");
  const marker = join(ws, "STARTED_IN");
  writeFileSync(script, `#!/bin/sh\npwd -P > ${marker}\n`);
  chmodSync(script, 0o755);
  return { script, marker };
}

describe("an untrusted config's MCP server cwd must lie in the workspace", () => {
  test.each([
    ["an absolute folder outside (/etc)", (_ws: string, _out: string) => "/etc"],
    ["a relative path that climbs out", (_ws: string, out: string) => `../${out.split("/").pop()}`],
    [
      "a link inside the workspace to a folder outside",
      (ws: string, out: string) => (symlinkSync(out, join(ws, "inside")), "inside"),
    ],
  ])("%s: the boot refuses (exit 5) naming the key; the server never starts", async (_what, cwdOf) => {
    await using ws = tempDir();
    await using out = tempDir();
    const { script, marker } = recorder(ws.path);
    writeFileSync(
      join(ws.path, "toolgate.json"),
      JSON.stringify({ mcpServers: { s: { command: script, cwd: cwdOf(ws.path, out.path) } } }),
    );
    const r = await run(["tools", "--allow-run"], { cwd: ws.path, env });
    expect([r.code, existsSync(marker)]).toEqual([5, false]);
    expect(r.stderr).toContain("mcpServers.s.cwd");
    expect(r.stderr).toContain("toolgate trust");
  });

  test("a cwd inside the workspace starts there; trusted, a cwd outside is the user's choice", async () => {
    await using ws = tempDir();
    await using out = tempDir();
    const { script, marker } = recorder(ws.path);
    mkdirSync(join(ws.path, "sub"));
    const config = join(ws.path, "toolgate.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { s: { command: script, cwd: "sub" } } }));
    await run(["tools", "--allow-run"], { cwd: ws.path, env });
    expect(readFileSync(marker, "utf8").trim()).toBe(join(ws.path, "sub"));
    writeFileSync(config, JSON.stringify({ mcpServers: { s: { command: script, cwd: out.path } } }));
    expect((await run(["trust"], { cwd: ws.path, env })).code).toBe(0);
    await run(["tools", "--allow-run"], { cwd: ws.path, env });
    expect(readFileSync(marker, "utf8").trim()).toBe(out.path);
  });
});

const LAS = join(import.meta.dir, "..", "fixtures", "las", "server.ts");

describe("Las gets the SKARBIEC_* capability paths, never a SKARBIEC_* token", () => {
  test("SKARBIEC_API_TOKEN, SKARBIEC_PASSWORD and a non-path value stay with toolgate; the vault path reaches Las", async () => {
    await using ws = tempDir();
    const envOut = join(ws.path, "env.json");
    const wrapper = join(ws.path, "las.sh");
    writeFileSync(wrapper, `#!/bin/sh\nexec /usr/bin/env -u PWD ${process.execPath} ${LAS} --env-out=${envOut}\n`);
    writeFileSync(
      join(ws.path, "toolgate.json"),
      JSON.stringify({
        las: {
          enabled: true,
          command: "/bin/sh",
          entrypoint: wrapper,
          agent_id: "being-7",
          timeout_secs: 10,
          shutdown_grace_secs: 1,
        },
      }),
    );
    expect((await run(["trust"], { cwd: ws.path, env })).code).toBe(0);
    const r = await run(["tools", "--allow-run"], {
      cwd: ws.path,
      env: {
        ...env,
        SKARBIEC_VAULT_PATH: "/srv/vault",
        SKARBIEC_API_TOKEN: "skarbiec-token-4711-canary",
        SKARBIEC_PASSWORD: "/hunter2-canary",
        SKARBIEC_SESSION_ID: "sess-canary",
      },
    });
    expect(r.code).toBe(0);
    const got = JSON.parse(readFileSync(envOut, "utf8")) as Record<string, string>;
    expect(Object.fromEntries(Object.entries(got).filter(([k]) => k.startsWith("SKARBIEC_")))).toEqual({
      SKARBIEC_VAULT_PATH: "/srv/vault",
      SKARBIEC_MCP_AGENT_ID: "being-7",
    });
    expect(readFileSync(envOut, "utf8")).not.toContain("canary");
  });
});
