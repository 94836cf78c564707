import { describe, expect, test } from "bun:test";
import { resolveConfig } from "../../src/config/resolve.ts";
import type { ConfigFile } from "../../src/config/file.ts";

const file = (data: Record<string, unknown>, path = "/repo/toolgate.json"): ConfigFile => ({
  path,
  via: "search",
  data,
  digest: "0".repeat(64),
  lineOf: (p) => p.length + 1,
});

describe("resolveConfig", () => {
  test("the embedded default: built-ins over the current directory, nothing else", () => {
    const c = resolveConfig({ cwd: "/here", file: null, env: {}, flags: {} });
    expect(c.values.workspace).toBe("/here");
    expect(c.values.state).toBe("/here/.toolgate");
    expect(c.values.las.enabled).toBe(false);
    expect(c.values.mcpServers).toBeUndefined();
    expect([...c.leaves.values()].every((l) => l.origin === "default")).toBe(true);
  });

  test("flag > environment > file > default", () => {
    const c = resolveConfig({
      cwd: "/here",
      file: file({ las: { timeout_secs: 30, shutdown_grace_secs: 4, command: "bun" } }),
      env: { SINGULARITY_MCP_TIMEOUT_SECS: "60", LAS_COMMAND: "deno" },
      flags: { "las.command": ["node", "--las-command"] },
    });
    expect(c.leaves.get("las.timeout_secs")).toEqual({ value: 60, origin: "env:SINGULARITY_MCP_TIMEOUT_SECS" });
    expect(c.leaves.get("las.shutdown_grace_secs")).toEqual({ value: 4, origin: "file:/repo/toolgate.json:3" });
    expect(c.leaves.get("las.command")).toEqual({ value: "node", origin: "flag:--las-command" });
    expect(c.leaves.get("gates.timeout_secs")).toEqual({ value: 600, origin: "default" });
  });

  test("LAS_COMMAND or LAS_MCP_ENTRYPOINT enable Las; lists split on commas", () => {
    const c = resolveConfig({
      cwd: "/",
      file: null,
      env: { LAS_MCP_ENTRYPOINT: "las.mjs", LAS_ONLY: "echo, finance", LAS_SKIP: "" },
      flags: {},
    });
    expect(c.values.las).toMatchObject({ enabled: true, entrypoint: "las.mjs", only: ["echo", "finance"], skip: [] });
  });

  test("workspace is relative to the config file; state and scratch to the workspace", () => {
    const c = resolveConfig({
      cwd: "/elsewhere",
      file: file({ workspace: "app", state: "var/tg" }),
      env: {},
      flags: {},
    });
    expect(c.values.workspace).toBe("/repo/app");
    expect(c.values.state).toBe("/repo/app/var/tg");
    expect(c.values.scratch).toBe("/repo/app/.toolgate/scratch");
    const d = resolveConfig({ cwd: "/elsewhere", file: file({}), env: {}, flags: {} });
    expect(d.leaves.get("workspace")).toEqual({ value: "/repo", origin: "file:/repo/toolgate.json" });
  });

  test("map sections keep one leaf per entry, even with dots in the name", () => {
    const c = resolveConfig({
      cwd: "/",
      file: file({ mcpServers: { "a.b": { command: "x" } }, approval: { plan: "required" } }),
      env: {},
      flags: {},
    });
    expect(c.values.mcpServers).toEqual({ "a.b": { command: "x" } });
    expect(c.values.approval).toEqual({ plan: "required" });
  });

  test("CI=true turns prompting off", () => {
    expect(
      resolveConfig({ cwd: "/", file: null, env: { CI: "true" }, flags: {} }).leaves.get("permissions.prompt"),
    ).toEqual({ value: false, origin: "env:CI" });
  });

  test.each([
    ["SINGULARITY_MCP_TIMEOUT_SECS", "x"],
    ["SINGULARITY_SHUTDOWN_GRACE_SECS", "-1"],
    ["SINGULARITY_MCP_TIMEOUT_SECS", ""],
  ])("%s=%p is a boot error", (name, value) => {
    expect(() => resolveConfig({ cwd: "/", file: null, env: { [name]: value }, flags: {} })).toThrow(name);
  });
});
