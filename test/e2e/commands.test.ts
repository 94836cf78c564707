// End to end: tools, log, --help, --version and version on the compiled binary.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildCatalog } from "../../src/catalog/catalog.ts";
import { builtinSources } from "../../src/catalog/builtin.ts";
import { builtinTools } from "../../src/tools/index.ts";
import { json, run, tempDir } from "../helpers.ts";

describe("toolgate tools", () => {
  test("NDJSON when piped: one descriptor per line, sorted, with full digests", async () => {
    await using dir = tempDir();
    const r = await run(["tools"], { cwd: dir.path });
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const built = buildCatalog(builtinSources(builtinTools));
    if (!built.ok) throw new Error(built.refusal.message);
    expect(lines).toEqual(built.value.descriptors.map(({ inputSchema: _, ...d }) => d));
    expect(lines.map((l) => l.name)).toEqual([...lines.map((l) => l.name)].sort());
    for (const l of lines) expect(l.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(lines.find((l) => l.name === "file_read")).toMatchObject({
      origin: "builtin",
      effect: "read",
      approval: "required",
    });
  });

  test("NAME shows the whole descriptor and input schema", async () => {
    await using dir = tempDir();
    const r = await run(["tools", "file_read", "--json"], { cwd: dir.path });
    const d = json(r);
    expect(d.inputSchema).toMatchObject({ type: "object", required: ["path"], additionalProperties: false });
    expect(d.description).toContain("digest");
    const missing = await run(["tools", "nope"], { cwd: dir.path });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("unknown_tool");
  });
});

describe("toolgate log", () => {
  test("--last N keeps the newest N, oldest first; a bad N is a usage error", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "a.txt"), "x\n");
    for (const tool of ["t1", "t2", "t3"]) await run(["call", tool, "{}"], { cwd: dir.path });
    const r = await run(["log", "--last", "2", "--json"], { cwd: dir.path });
    expect(
      r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).tool),
    ).toEqual(["t2", "t3"]);
    const bad = await run(["log", "--last", "zero"], { cwd: dir.path });
    expect(bad.code).toBe(2);
  });
});

describe("help and version", () => {
  test.each([[[]], [["call"]], [["tools"]], [["config"]], [["log"]]])("--help for %p", async (cmd) => {
    await using dir = tempDir();
    const r = await run([...cmd, "--help"], { cwd: dir.path });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("USAGE");
  });

  test("--version", async () => {
    await using dir = tempDir();
    const r = await run(["--version"], { cwd: dir.path });
    const pkg = await Bun.file(join(import.meta.dir, "../../package.json")).json();
    expect(r.stdout.trim()).toBe(`toolgate ${pkg.version}`);
  });

  test("version: the version, the commit built (the checkout's HEAD) and the target", async () => {
    await using dir = tempDir();
    const r = await run(["version"], { cwd: dir.path });
    const pkg = await Bun.file(join(import.meta.dir, "../../package.json")).json();
    const head = Bun.spawnSync(["git", "-C", join(import.meta.dir, "../.."), "rev-parse", "--short=12", "HEAD"])
      .stdout.toString()
      .trim();
    expect(r.code).toBe(0);
    const v = JSON.parse(r.stdout);
    expect(v).toEqual({
      version: pkg.version,
      commit: expect.stringMatching(new RegExp(`^${head}(-dirty)?$`)),
      target: `linux-${process.arch}`,
    });
    const extra = await run(["version", "now"], { cwd: dir.path });
    expect([extra.code, extra.stderr]).toEqual([
      2,
      'toolgate: unexpected argument "now"\n  hint: toolgate version [--json]\n',
    ]);
  });

  test("no command: usage on stdout, exit 2", async () => {
    await using dir = tempDir();
    const r = await run([], { cwd: dir.path });
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("USAGE");
  });
});
