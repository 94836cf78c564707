import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import type { ConfigFile } from "../../src/config/file.ts";
import { resolveConfig } from "../../src/config/resolve.ts";
import { widenings } from "../../src/trust/rule.ts";
import { tempDir } from "../helpers.ts";

const keysOf = (
  root: string,
  data: Record<string, unknown>,
  opts: { workspaceFlag?: string; userSandbox?: "off" | "product" | "bench" } = {},
) => {
  const file: ConfigFile = {
    path: join(root, "toolgate.json"),
    via: "search",
    data,
    digest: "0".repeat(64),
    lineOf: () => 1,
  };
  const flags: Record<string, readonly [unknown, string]> = opts.workspaceFlag
    ? { workspace: [opts.workspaceFlag, "--workspace"] }
    : {};
  const config = resolveConfig({ cwd: root, file, env: {}, flags });
  return widenings({
    file,
    values: config.values,
    workspaceFlag: opts.workspaceFlag !== undefined,
    ...(opts.userSandbox ? { userSandbox: opts.userSandbox } : {}),
  }).map((w) => w.key);
};

describe("widenings: what an untrusted config may not say", () => {
  test.each([
    [
      "permissions.allow (each kind)",
      { permissions: { allow: { read: true, write: ["x"], run: ["git"], net: ["h:1"], env: ["A"] } } },
      [
        "permissions.allow.read",
        "permissions.allow.write",
        "permissions.allow.run",
        "permissions.allow.net",
        "permissions.allow.env",
      ],
    ],
    ["workspace above the config's folder", { workspace: ".." }, ["workspace"]],
    ["state outside", { state: "/var/tmp/x" }, ["state"]],
    ["scratch outside", { scratch: "../s" }, ["scratch"]],
    ["a skills folder outside", { skills: ["skills", "/etc"] }, ["skills.1"]],
    ["authored.dir outside", { authored: { dir: "/opt/tools" } }, ["authored.dir"]],
    ["gates.directory outside", { gates: { directory: "/srv/other" } }, ["gates.directory"]],
    [
      "las identity and release anchors",
      { las: { agent_id: "x", release_trust_store_file: "t" } },
      ["las.agent_id", "las.release_trust_store_file"],
    ],
    ["las surfaces beyond the default list", { las: { only: ["echo", "secret_surface"] } }, ["las.only"]],
    ["a Most credential file", { most: { service_token_file: "/root/.token" } }, ["most.service_token_file"]],
    ["delegation's command", { delegation: { command: ["sh"] } }, ["delegation.command"]],
    [
      "the issuer serve --http takes tokens from, and its caller rules",
      { serve: { oauth: { issuer: "https://id.example.test" }, callers: [{ profile: "scout" }] } },
      ["serve.oauth", "serve.callers"],
    ],
    [
      "a server's own PATH (other env keys narrow nothing)",
      { mcpServers: { s: { command: "x", env: { PATH: "/opt/bin", K: "v" } } } },
      ["mcpServers.s.env.PATH"],
    ],
    [
      "the local-path rule switched off for a server",
      { mcpServers: { eslint: { command: "x", boundary: { local_paths: "allow" } } } },
      ["mcpServers.eslint.boundary.local_paths"],
    ],
    [
      "a server's cwd outside (a disabled server's is not looked at)",
      {
        mcpServers: {
          a: { command: "x", cwd: "/etc" },
          b: { command: "x", cwd: ".." },
          c: { command: "x", cwd: "sub" },
          d: { command: "x", cwd: "/etc", disabled: true },
        },
      },
      ["mcpServers.a.cwd", "mcpServers.b.cwd"],
    ],
    [
      "longer time limits",
      {
        bash: { max_timeout_secs: 6000 },
        gates: { timeout_secs: 601 },
        tasks: { yield_cap_secs: 241 },
        mcpServers: { s: { command: "x", connect_timeout_secs: 31, timeout_secs: 121 } },
      },
      [
        "bash.max_timeout_secs",
        "gates.timeout_secs",
        "tasks.yield_cap_secs",
        "mcpServers.s.connect_timeout_secs",
        "mcpServers.s.timeout_secs",
      ],
    ],
  ])("%s", async (_n, data, keys) => {
    await using d = tempDir();
    expect(keysOf(d.path, data as Record<string, unknown>)).toEqual(keys);
  });

  test.each([
    ["an empty config", {}],
    [
      "denies, prompt off, stricter approval, profiles",
      {
        permissions: { deny: { read: true }, prompt: false, allow: { read: false, run: [] } },
        approval: { bash: "required" },
        profiles: { p: { include: ["file_read"] } },
      },
    ],
    [
      "a stricter sandbox, shorter limits",
      {
        sandbox: "product",
        bash: { timeout_secs: 5, max_timeout_secs: 10 },
        gates: { timeout_secs: 1, pattern: "ci/check-*.sh" },
        las: { timeout_secs: 10, shutdown_grace_secs: 1 },
      },
    ],
    [
      "folders inside the workspace",
      {
        workspace: "sub",
        state: ".tg",
        scratch: ".tg/s",
        skills: ["cards"],
        authored: { dir: "my-tools" },
        gates: { directory: "." },
      },
    ],
    [
      "servers (their start still needs a flag) and Las on its defaults",
      {
        mcpServers: { a: { command: "node", args: ["x"] }, b: { type: "http", url: "http://h/mcp" } },
        las: { enabled: true, only: ["echo"], skip: ["tama"] },
      },
    ],
  ])("%s narrows only", async (_n, data) => {
    await using d = tempDir();
    expect(keysOf(d.path, data as Record<string, unknown>)).toEqual([]);
  });

  test("containment is decided on real paths: a folder inside by name but a symlink out widens", async () => {
    await using d = tempDir();
    await using out = tempDir();
    symlinkSync(out.path, join(d.path, "link"));
    expect(
      keysOf(d.path, { state: "link/state", skills: ["link"], mcpServers: { s: { command: "x", cwd: "link" } } }),
    ).toEqual(["state", "skills.0", "mcpServers.s.cwd"]);
  });

  test("a symlinked default is named without a file line", async () => {
    await using d = tempDir();
    await using out = tempDir();
    symlinkSync(out.path, join(d.path, ".toolgate"));
    expect(keysOf(d.path, {})).toEqual(["state", "scratch"]);
  });

  test("--workspace wins over the file's workspace, so that key is not checked; folders are checked against the flag's", async () => {
    await using d = tempDir();
    mkdirSync(join(d.path, "w"));
    expect(keysOf(d.path, { workspace: "/" }, { workspaceFlag: join(d.path, "w") })).toEqual([]);
    expect(keysOf(d.path, { state: join(d.path, "st") }, { workspaceFlag: join(d.path, "w") })).toEqual(["state"]);
  });

  test("a sandbox weaker than the user's own setting widens", async () => {
    await using d = tempDir();
    expect(keysOf(d.path, { sandbox: "bench" }, { userSandbox: "product" })).toEqual(["sandbox"]);
    expect(keysOf(d.path, { sandbox: "product" }, { userSandbox: "bench" })).toEqual([]);
  });
});
