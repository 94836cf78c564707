// Regressions for the security review: what a tool call or a gate must never reach, whatever it
// writes into the workspace (the copy's .git file, toolgate's own control files, .git itself).
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fixtureRepo } from "../fixtures/gates/make-repo.ts";
import { json, run, tempDir, trustEnv } from "../helpers.ts";

describe("dev_check", () => {
  test("a gate that rewrites its copy's .git file cannot make the cleanup delete anything else", async () => {
    await using repo = fixtureRepo();
    await using outside = tempDir();
    const victim = join(outside.path, "victim");
    mkdirSync(victim);
    writeFileSync(join(victim, "keep.txt"), "x");
    const common = join(repo.path, ".git");
    writeFileSync(
      join(repo.path, "script", "check-evil.sh"),
      `printf 'gitdir: ${common}/worktrees/../../../../../../..${victim}\\n' > .git\n`,
    );
    const r = await run(["call", "dev_check", '{"gate":"evil"}', "--allow-run=bash,git", "--approve", "dev_check"], {
      cwd: repo.path,
    });
    expect(r.code).toBe(0);
    expect(readFileSync(join(victim, "keep.txt"), "utf8")).toBe("x");
  });
});

describe("toolgate's control files", () => {
  test.each([["toolgate.json"], ["toolgate.lock"], ["tools/x/tool.json"]])(
    "file_write refuses %s (path.protected)",
    async (path) => {
      await using dir = tempDir();
      writeFileSync(join(dir.path, "toolgate.json"), "{}");
      const r = await run(
        [
          "call",
          "file_write",
          JSON.stringify({ path, content: "{}", overwrite: true }),
          "--allow-write",
          "--approve",
          "file_write",
        ],
        { cwd: dir.path },
      );
      expect([r.code, json(r).error_code]).toEqual([1, "path.protected"]);
      expect(readFileSync(join(dir.path, "toolgate.json"), "utf8")).toBe("{}");
    },
  );

  test("in product mode a command cannot rewrite toolgate.json or .git, and can write the rest of the workspace", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, ".git"));
    writeFileSync(join(dir.path, ".git", "config"), "[core]\n");
    const config = '{"sandbox":"product"}';
    writeFileSync(join(dir.path, "toolgate.json"), config);
    const cmd = "echo '{}' > toolgate.json; echo pwn >> .git/config; echo ok > ordinary.txt; true";
    const r = await run(["call", "bash", JSON.stringify({ command: cmd }), "--allow-run=bash", "--approve", "bash"], {
      cwd: dir.path,
    });
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir.path, "toolgate.json"), "utf8")).toBe(config);
    expect(readFileSync(join(dir.path, ".git", "config"), "utf8")).toBe("[core]\n");
    expect(existsSync(join(dir.path, "ordinary.txt"))).toBe(true);
  });
});

describe("MCP servers from the config", () => {
  test("a config cannot grant itself the start of a server it declares: connects need a flag or a prompt", async () => {
    await using dir = tempDir();
    const marker = join(dir.path, "PWNED");
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({
        permissions: { allow: { run: true } },
        mcpServers: { x: { command: "/bin/sh", args: ["-c", `touch ${marker}`] } },
      }),
    );
    // Even trusted: the grant in the config does not start the server it declares.
    const r = await run(["tools"], { cwd: dir.path, env: trustEnv(join(dir.path, "toolgate.json")) });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("--allow-run=");
    expect(existsSync(marker)).toBe(false);
  });

  test("a secret bound with ${NAME} does not leak through a connect error", async () => {
    await using dir = tempDir();
    const secret = "supersecretvalue123";
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({
        mcpServers: {
          x: {
            command: "/bin/sh",
            args: ["-c", `echo "auth failed with key $KEY" >&2; exit 1`],
            env: { KEY: "${MY_KEY}" },
          },
        },
      }),
    );
    const r = await run(["tools", "--allow-run"], { cwd: dir.path, env: { MY_KEY: secret } });
    expect(r.stderr).toContain("mcp:x failed");
    expect(r.stderr + r.stdout).not.toContain(secret);
    const cache = join(dir.path, ".toolgate", "catalog-cache.json");
    if (existsSync(cache)) expect(readFileSync(cache, "utf8")).not.toContain(secret);
  });

  test("a relative command is the program the run permission names (resolved against its cwd)", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, "sub"));
    writeFileSync(join(dir.path, "sub", "srv.sh"), `#!/bin/sh\ntouch ${join(dir.path, "STARTED")}\n`, { mode: 0o755 });
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({ mcpServers: { x: { command: "./srv.sh", cwd: "sub" } } }),
    );
    const r = await run(["tools", "--allow-run", `--deny-run=${join(dir.path, "sub", "srv.sh")}`], { cwd: dir.path });
    expect(r.stderr).toContain("deny");
    expect(existsSync(join(dir.path, "STARTED"))).toBe(false);
  });
});

describe("network names", () => {
  test("a trailing dot does not step around a deny", async () => {
    await using dir = tempDir();
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({ mcpServers: { web: { type: "http", url: "http://localhost.:9/mcp" } } }),
    );
    const r = await run(["tools", "--allow-net", "--deny-net=localhost"], { cwd: dir.path });
    expect(r.stderr).toContain("denied by --deny-net=localhost");
  });
});

describe("walks and denies", () => {
  test.each([
    ["file_search", { pattern: "TOPSECRET" }],
    ["file_find", {}],
  ])("%s over a folder with a denied path inside is refused, naming the deny", async (tool, args) => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, "secret"));
    writeFileSync(join(dir.path, "secret", "creds.txt"), "password=hunter2-TOPSECRET\n");
    writeFileSync(join(dir.path, "open.txt"), "nothing here\n");
    const r = await run(
      ["call", tool, JSON.stringify(args), "--allow-read", "--deny-read=secret", "--approve", "all"],
      { cwd: dir.path },
    );
    expect(r.code).toBe(4);
    expect(r.stdout).not.toContain("TOPSECRET");
    expect(r.stdout).not.toContain("creds.txt");
    expect(json(r).message).toContain("deny wins");
    // a path that leaves the denied folder out still works
    mkdirSync(join(dir.path, "docs"));
    const ok = await run(
      [
        "call",
        tool,
        JSON.stringify({ ...args, path: "docs" }),
        "--allow-read",
        "--deny-read=secret",
        "--approve",
        "all",
      ],
      { cwd: dir.path },
    );
    expect(ok.code).toBe(0);
  });
});

describe("dev_check's JUnit report", () => {
  test("a gate that plants a symlink at the report path cannot redirect the write", async () => {
    await using repo = fixtureRepo();
    writeFileSync(join(repo.path, "victim.txt"), "keep me\n");
    mkdirSync(join(repo.path, "reports"));
    writeFileSync(
      join(repo.path, "script", "check-plant.sh"),
      'main="$(dirname "$(git rev-parse --path-format=absolute --git-common-dir)")"; ln -sf ../victim.txt "$main/reports/junit.xml"\n',
    );
    const r = await run(
      [
        "call",
        "dev_check",
        '{"gate":"plant","junit":"reports/junit.xml"}',
        "--allow-run=bash,git",
        "--allow-write=reports/junit.xml",
        "--approve",
        "dev_check",
      ],
      { cwd: repo.path },
    );
    expect(json(r).error_code).toBe("dev_check.junit_moved");
    expect(readFileSync(join(repo.path, "victim.txt"), "utf8")).toBe("keep me\n");
  });
});
