// End to end (the compiled binary): a config chosen by name never moves the workspace, discovery
// starts from --workspace, and a trusted config's env.PATH reaches its server.
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir, trustEnv, type RunResult } from "../helpers.ts";
import { serve } from "../serve/client.ts";

const FIXTURE = join(import.meta.dir, "..", "fixtures", "las", "server.ts");
const lines = (r: RunResult) =>
  r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** A checkout (a git repository holding notes.txt), a config folder elsewhere, and HOME apart from both. */
function layout(root: string) {
  const checkout = join(root, "checkout");
  const ci = join(root, "ci");
  const home = join(root, "home");
  for (const d of [join(checkout, ".git"), ci, home]) mkdirSync(d, { recursive: true });
  writeFileSync(join(checkout, "notes.txt"), "from the checkout\n");
  const env = { HOME: home, XDG_STATE_HOME: join(home, "state") };
  return { checkout, ci, home, env };
}

describe("--config chooses a config, never the workspace", () => {
  test("--config from another folder: the workspace is where toolgate runs, .toolgate/ is made there, relative grants resolve there", async () => {
    await using d = tempDir();
    const { checkout, ci, env } = layout(d.path);
    // "notes.txt" is relative: against the workspace (the checkout), not the config's folder.
    writeFileSync(join(ci, "toolgate.json"), JSON.stringify({ permissions: { allow: { read: ["notes.txt"] } } }));
    const r = await run(
      ["call", "file_read", '{"path":"notes.txt"}', "--approve", "file_read", "--config", join(ci, "toolgate.json")],
      { cwd: checkout, env },
    );
    expect([r.code, json(r).status, json(r).payload?.content]).toEqual([0, "success", "1\tfrom the checkout"]);
    expect(existsSync(join(checkout, ".toolgate"))).toBe(true);
    expect(existsSync(join(ci, ".toolgate"))).toBe(false);
    const c = await run(["config", "--json", "--config", join(ci, "toolgate.json")], { cwd: checkout, env });
    expect(json(c).workspace).toEqual({ value: checkout, origin: "default" });
  });

  test("$TOOLGATE_CONFIG outside the checkout likewise, and it is the user's (its grants hold)", async () => {
    await using d = tempDir();
    const { checkout, ci, env } = layout(d.path);
    writeFileSync(join(ci, "user.json"), JSON.stringify({ permissions: { allow: { read: ["notes.txt"] } } }));
    const r = await run(["call", "file_read", '{"path":"notes.txt"}', "--approve", "file_read"], {
      cwd: checkout,
      env: { ...env, TOOLGATE_CONFIG: join(ci, "user.json") },
    });
    expect([r.code, json(r).payload?.content]).toEqual([0, "1\tfrom the checkout"]);
    expect(existsSync(join(ci, ".toolgate"))).toBe(false);
  });

  test("the config's own workspace key still chooses it, relative to the config's folder", async () => {
    await using d = tempDir();
    const { checkout, ci, env } = layout(d.path);
    writeFileSync(join(ci, "toolgate.json"), JSON.stringify({ workspace: "../checkout" }));
    const c = await run(["config", "--json", "--config", join(ci, "toolgate.json")], { cwd: d.path, env });
    expect(json(c).workspace.value).toBe(checkout);
  });
});

describe("toolgate trust binds the workspace the boot uses", () => {
  test.each([
    ["found from a subfolder", []],
    ["named from a subfolder", ["../toolgate.json"]],
  ])("a config %s is trusted for its own folder, not the folder trust ran in", async (_n, args) => {
    await using d = tempDir();
    const { checkout, env } = layout(d.path);
    const sub = join(checkout, "sub");
    mkdirSync(sub);
    writeFileSync(join(checkout, "toolgate.json"), JSON.stringify({ permissions: { allow: { read: ["notes.txt"] } } }));
    const t = await run(["trust", ...args], { cwd: sub, env });
    expect(t.code, t.stderr).toBe(0);
    expect(t.stderr).toContain(`for the workspace ${checkout} `);
    const r = await run(["call", "file_read", '{"path":"notes.txt"}', "--approve", "file_read"], { cwd: sub, env });
    expect([r.code, json(r).payload?.content], r.stdout).toEqual([0, "1\tfrom the checkout"]);
  });
});

describe("discovery starts from --workspace", () => {
  const project = (root: string) => {
    const p = join(root, "project");
    mkdirSync(join(p, ".git"), { recursive: true });
    writeFileSync(join(p, "a.txt"), "a\n");
    // Its profile, and an approval that made plan (by default "never") stricter.
    writeFileSync(
      join(p, "toolgate.json"),
      JSON.stringify({ profiles: { mine: { include: ["plan", "task_list"] } }, approval: { plan: "required" } }),
    );
    const elsewhere = join(root, "elsewhere");
    mkdirSync(elsewhere);
    return { p, elsewhere };
  };

  test("tools --workspace PROJECT from another folder uses PROJECT/toolgate.json (its profile, its approval)", async () => {
    await using d = tempDir();
    const { p, elsewhere } = project(d.path);
    const r = await run(["tools", "--workspace", p, "--profile", "mine"], {
      cwd: elsewhere,
      env: { HOME: join(d.path, "home") },
    });
    expect(r.code).toBe(0);
    expect(lines(r).map((t) => [t.name, t.approval])).toEqual([
      ["plan", "required"],
      ["task_list", "never"],
    ]);
    expect(existsSync(join(elsewhere, ".toolgate"))).toBe(false);
  });

  test("serve --workspace PROJECT started by an editor from another folder serves PROJECT's profile, with the effective approval", async () => {
    await using d = tempDir();
    const { p, elsewhere } = project(d.path);
    await using served = await serve(["--workspace", p, "--profile", "mine"], {
      cwd: elsewhere,
      home: join(d.path, "home"),
    });
    const listed = await served.client.listTools();
    expect(
      listed.tools.map((t) => [t.name, (t._meta as { toolgate: { approval: string } }).toolgate.approval]),
    ).toEqual([
      ["plan", "required"],
      ["task_list", "never"],
    ]);
    // The state folder is PROJECT's: the task list is read there, nothing is made where serve was started.
    const tasks = await served.client.callTool({ name: "task_list", arguments: {} });
    expect(tasks.isError).toBeFalsy();
    expect(existsSync(join(p, ".toolgate"))).toBe(true);
    expect(existsSync(join(elsewhere, ".toolgate"))).toBe(false);
  });
});

describe("a server's env.PATH", () => {
  /** A server found by a bare name only on env.PATH, which starts its helper by a bare name only on env.PATH too. */
  const server = (root: string) => {
    const bin = join(root, "bin");
    const helpers = join(root, "helpers");
    mkdirSync(bin);
    mkdirSync(helpers);
    symlinkSync(process.execPath, join(helpers, "helper-runtime"));
    const envOut = join(root, "env.json");
    writeFileSync(join(bin, "path-server"), `#!/bin/sh\nexec helper-runtime ${FIXTURE} --env-out=${envOut}\n`, {
      mode: 0o755,
    });
    const PATH = `${bin}:${helpers}:/usr/bin:/bin`;
    return { PATH, envOut, config: { mcpServers: { fx: { command: "path-server", env: { PATH } } } } };
  };

  test("a trusted config's env.PATH finds the command and its helper, and is the server's PATH", async () => {
    await using d = tempDir();
    const { checkout, ci, env } = layout(d.path);
    const s = server(d.path);
    writeFileSync(join(ci, "toolgate.json"), JSON.stringify(s.config));
    const r = await run(
      [
        "call",
        "fx__echo__echo",
        '{"message":"hi"}',
        "--config",
        join(ci, "toolgate.json"),
        "--allow-run",
        "--approve",
        "all",
      ],
      { cwd: checkout, env },
    );
    expect([r.code, json(r).status], r.stderr).toEqual([0, "success"]);
    expect(JSON.parse(readFileSync(s.envOut, "utf8")).PATH).toBe(s.PATH);
  });

  test("a workspace config that sets it is refused naming the key until trusted; trusted, it is honoured", async () => {
    await using d = tempDir();
    const { checkout, env } = layout(d.path);
    const s = server(d.path);
    const file = join(checkout, "toolgate.json");
    writeFileSync(file, JSON.stringify(s.config));
    const args = ["call", "fx__echo__echo", '{"message":"hi"}', "--allow-run", "--approve", "all"];
    const refused = await run(args, { cwd: checkout, env });
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain(`${file}:1: mcpServers.fx.env.PATH: replaces the fixed PATH`);
    expect(refused.stderr).toContain("toolgate trust");
    expect(existsSync(s.envOut)).toBe(false);
    const trusted = await run(args, { cwd: checkout, env: { ...env, ...trustEnv(file) } });
    expect([trusted.code, json(trusted).status]).toEqual([0, "success"]);
    expect(JSON.parse(readFileSync(s.envOut, "utf8")).PATH).toBe(s.PATH);
  });

  test("a relative entry is refused naming the key", async () => {
    await using d = tempDir();
    const { checkout, ci, env } = layout(d.path);
    writeFileSync(
      join(ci, "toolgate.json"),
      JSON.stringify({ mcpServers: { fx: { command: "/bin/true", env: { PATH: "node_modules/.bin:/usr/bin" } } } }),
    );
    const r = await run(["tools", "--config", join(ci, "toolgate.json")], { cwd: checkout, env });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain('mcpServers.fx.env.PATH: PATH has the relative entry "node_modules/.bin"');
  });
});
