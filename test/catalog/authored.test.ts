// Authored tools in process: reading manifests (every error names file, line:column and key),
// the sources they become (name, needs, argv), collisions, and a call through the real launcher.
import { describe, expect, test } from "bun:test";
import { chmodSync, cpSync, mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  authoredSources,
  findCollision,
  needsOf,
  runAuthored,
  STDERR_TAIL_CHARS,
  toSource,
  WAIVER_IGNORED,
  WAIVER_STALE,
  type Waiver,
} from "../../src/catalog/authored.ts";
import { loadManifests, type Manifest, type ManifestOptions } from "../../src/catalog/authored-manifest.ts";
import { buildCatalog } from "../../src/catalog/catalog.ts";
import { builtinSources } from "../../src/catalog/builtin.ts";
import type { ToolContext } from "../../src/catalog/declare.ts";
import { BASE_ENV } from "../../src/launcher/env.ts";
import { processRunner } from "../../src/runtime/processes.ts";
import { builtinTools } from "../../src/tools/index.ts";
import { BAD_MANIFESTS, plant } from "../fixtures/authored/bad-manifests.ts";
import { tempDir } from "../helpers.ts";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "authored");
const opts = (workspace: string): ManifestOptions => ({ workspace, pathEnv: BASE_ENV.PATH!, checkNeed: () => null });

function tool(ws: string, folder: string, manifest: Record<string, unknown>, run = "#!/bin/sh\ncat\n"): string {
  const dir = join(ws, "tools", folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "tool.json"), JSON.stringify(manifest, null, 2));
  writeFileSync(join(dir, "run"), run);
  chmodSync(join(dir, "run"), 0o755);
  return join(dir, "tool.json");
}

function load(ws: string): Manifest[] {
  const r = loadManifests(join(ws, "tools"), opts(ws));
  if (!r.ok) throw new Error(r.refusal.message);
  return r.value;
}

describe("reading manifests", () => {
  test("a minimal manifest: fail-closed defaults, ./run spawned workspace-relative, its real path the run need", async () => {
    await using ws = tempDir();
    tool(ws.path, "hello", { name: "hello", description: "says hello", input_schema: { type: "object" } });
    const [m] = load(ws.path);
    expect(m).toEqual({
      path: join(ws.path, "tools/hello/tool.json"),
      folder: join(ws.path, "tools/hello"),
      name: "hello",
      description: "says hello",
      inputSchema: { type: "object" },
      effect: undefined,
      approval: "required",
      needs: {},
      argv: ["tools/hello/run"],
      program: join(ws.path, "tools/hello/run"),
      timeoutSecs: 60,
      identity: {
        manifest: { name: "hello", description: "says hello", input_schema: { type: "object" } },
        argv: ["tools/hello/run"],
        program: "tools/hello/run",
        files: { "tools/hello/run": new Bun.CryptoHasher("sha256").update("#!/bin/sh\ncat\n").digest("hex") },
      },
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const built = buildCatalog([toSource(m!)]);
    expect(built.ok && built.value.descriptors.map((d) => [d.name, d.origin, d.effect, d.approval])).toEqual([
      ["hello", "authored", "irreversible", "required"],
    ]);
  });

  test("command: a bare program from the launcher's PATH, folder-relative arguments, timeout_secs", async () => {
    await using ws = tempDir();
    tool(ws.path, "t", {
      name: "t",
      description: "d",
      input_schema: { type: "object" },
      command: ["bash", "./main.sh", "--flag", "../shared/x"],
      timeout_secs: 5,
    });
    const [m] = load(ws.path);
    expect(m!.argv).toEqual(["bash", "tools/t/main.sh", "--flag", "tools/shared/x"]);
    expect(m!.program).toBe(realpathSync("/bin/bash"));
    expect(m!.timeoutSecs).toBe(5);
  });

  test("a tools folder outside the workspace is spawned by absolute path", async () => {
    await using ws = tempDir();
    await using other = tempDir();
    tool(other.path, "t", { name: "t", description: "d", input_schema: { type: "object" } });
    const r = loadManifests(join(other.path, "tools"), opts(ws.path));
    expect(r.ok && r.value[0]!.argv).toEqual([join(other.path, "tools/t/run")]);
  });

  test("a symlinked ./run needs the run permission of its target", async () => {
    await using ws = tempDir();
    tool(ws.path, "t", { name: "t", description: "d", input_schema: { type: "object" } });
    writeFileSync(join(ws.path, "real.sh"), "#!/bin/sh\n");
    chmodSync(join(ws.path, "real.sh"), 0o755);
    rmSync(join(ws.path, "tools/t/run"));
    symlinkSync("../../real.sh", join(ws.path, "tools/t/run"));
    expect(load(ws.path)[0]!.program).toBe(join(ws.path, "real.sh"));
  });

  test("only folders holding a tool.json are tools; hidden folders and loose files are ignored; order is by folder", async () => {
    await using ws = tempDir();
    tool(ws.path, "b", { name: "zeta", description: "d", input_schema: { type: "object" } });
    tool(ws.path, "a", { name: "alpha", description: "d", input_schema: { type: "object" } });
    tool(ws.path, ".hidden", { name: "hidden", description: "d", input_schema: { type: "object" } });
    mkdirSync(join(ws.path, "tools/scripts"));
    writeFileSync(join(ws.path, "tools/scripts/build.sh"), "echo\n");
    writeFileSync(join(ws.path, "tools/tool.json"), "not a tool folder");
    expect(load(ws.path).map((m) => m.name)).toEqual(["alpha", "zeta"]);
  });

  test("a name follows the catalog's rule: 65 and 128 characters load (serve maps them to a client's budget)", async () => {
    await using ws = tempDir();
    const names = ["a".repeat(65), "b".repeat(128)];
    names.forEach((name, i) => {
      tool(ws.path, `t${i}`, { name, description: "d", input_schema: { type: "object" } });
    });
    expect(load(ws.path).map((m) => m.name)).toEqual(names);
  });

  test("an authored-tools path that is a file is refused", async () => {
    await using ws = tempDir();
    writeFileSync(join(ws.path, "tools"), "");
    const r = loadManifests(join(ws.path, "tools"), opts(ws.path));
    expect(r.ok ? "" : r.refusal.message).toContain("(authored.dir) is not a folder");
  });

  test.each(BAD_MANIFESTS.map((b) => [b.what, b] as const))(
    "refuses %s, naming the file and the key",
    async (_what, bad) => {
      await using ws = tempDir();
      const path = plant(ws.path, bad);
      // The checks boot injects (permission and launcher rules) are exercised end to end; here, a stand-in.
      const checkNeed = (kind: string, v: string) =>
        kind === "env" && !/^[A-Za-z_]\w*$/.test(v)
          ? "is not an environment variable name"
          : kind === "env" && v === "LD_PRELOAD"
            ? "is fixed by the launcher or changes what a child executes"
            : kind === "net" && v.includes(" ")
              ? "is not a host or host:port"
              : null;
      const r = loadManifests(join(ws.path, "tools"), { ...opts(ws.path), checkNeed });
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.refusal.code).toBe("authored.invalid_manifest");
      expect(r.refusal.message).toStartWith(`${path}:`);
      expect(r.refusal.message.slice(path.length)).toMatch(
        new RegExp(`^:\\d+:\\d+: ${bad.key === "" ? "invalid JSON" : `${RegExp.escape(bad.key)}: `}`),
      );
      expect(r.refusal.message).toMatch(bad.message);
      expect((r.refusal.details as { hint: string }).hint.length).toBeGreaterThan(0);
    },
  );

  test.each([
    ["a syntax error", '{\n  "name": "x",\n  "description" "d"\n}', "3:17", "invalid JSON (ColonExpected)"],
    [
      "an unknown key points at the key",
      '{\n  "name": "x",\n  "description": "d",\n  "input_schema": {"type": "object"},\n    "extra": true\n}',
      "5:5",
      "extra: unknown key",
    ],
    [
      "a wrong value points at the value",
      '{\n  "name": "x",\n  "description": "d",\n  "input_schema": {"type": "object"},\n  "timeout_secs": "soon"\n}',
      "5:19",
      "timeout_secs: must be a number (was string)",
    ],
    [
      "a schema problem points inside input_schema",
      '{\n  "name": "x",\n  "description": "d",\n  "input_schema": {\n    "type": "object",\n    "properties": {"a": {"$ref": "#/x"}}\n  }\n}',
      "6:25",
      "input_schema.properties.a: the runtime validator cannot check this schema: can't resolve reference #/x from id #",
    ],
  ])("line and column: %s", async (_what, text, at, rest) => {
    await using ws = tempDir();
    const path = tool(ws.path, "x", {});
    writeFileSync(path, text);
    const r = loadManifests(join(ws.path, "tools"), opts(ws.path));
    expect(r.ok ? "" : r.refusal.message).toStartWith(`${path}:${at}: ${rest}`);
  });
});

describe("sources and collisions", () => {
  test("needs: the tool's folder (its run grant), its program against denies only, then the declared needs with read/write relative to the workspace", async () => {
    await using ws = tempDir();
    tool(ws.path, "t", {
      name: "t",
      description: "d",
      input_schema: { type: "object" },
      needs: {
        env: ["API_URL"],
        read: ["data", "/etc/hosts"],
        write: ["out"],
        net: ["example.invalid:443"],
        run: ["git"],
      },
    });
    expect(needsOf(load(ws.path)[0]!, ws.path)).toEqual([
      {
        kind: "run",
        value: join(ws.path, "tools/t"),
        note: "that is the authored tool t, granted by its folder (or --allow-run for every program and tool); a grant of the program it starts (run) does not cover it",
      },
      { kind: "run", value: join(ws.path, "tools/t/run"), denyOnly: true },
      { kind: "read", value: join(ws.path, "data") },
      { kind: "read", value: "/etc/hosts" },
      { kind: "write", value: join(ws.path, "out") },
      { kind: "run", value: "git" },
      { kind: "net", value: "example.invalid:443" },
      { kind: "env", value: "API_URL" },
    ]);
  });

  test('a manifest\'s own "never" holds only where the trust covers it; otherwise required, and the note says why', async () => {
    await using ws = tempDir();
    tool(ws.path, "w", { name: "w", description: "d", input_schema: { type: "object" }, approval: "never" });
    tool(ws.path, "r", { name: "r", description: "d", input_schema: { type: "object" } });
    const asked: string[] = [];
    const sources = (waiver: Waiver) => {
      const r = authoredSources(load(ws.path), [], (m) => (asked.push(m.name), waiver));
      return r.ok ? r.value.map((s) => [s.name, s.approval, s.note ?? null]) : [];
    };
    expect(sources("honoured")).toEqual([
      ["r", "required", null],
      ["w", "never", null],
    ]);
    expect(sources("untrusted")).toEqual([
      ["r", "required", null],
      ["w", "required", WAIVER_IGNORED],
    ]);
    expect(sources("changed")).toEqual([
      ["r", "required", null],
      ["w", "required", WAIVER_STALE],
    ]);
    expect(asked).toEqual(["w", "w", "w"]); // asked only for a manifest that waives
  });

  test("the manifest digest (what trust records) changes with the manifest and with the program's content", async () => {
    await using ws = tempDir();
    const m = { name: "d", description: "d", input_schema: { type: "object" }, approval: "never" };
    tool(ws.path, "d", m);
    const first = load(ws.path)[0]!.digest;
    expect(load(ws.path)[0]!.digest).toBe(first);
    writeFileSync(join(ws.path, "tools/d/run"), "#!/bin/sh\necho changed\n");
    const second = load(ws.path)[0]!.digest;
    tool(ws.path, "d", { ...m, description: "other" });
    expect(new Set([first, second, load(ws.path)[0]!.digest]).size).toBe(3);
  });

  test("a collision with a built-in names both provenances and the manifest, and asks for a rename", async () => {
    await using ws = tempDir();
    const path = tool(ws.path, "mine", { name: "File-Read", description: "d", input_schema: { type: "object" } });
    const r = authoredSources(load(ws.path), builtinSources(builtinTools), () => "untrusted");
    expect(r.ok ? null : r.refusal).toEqual({
      code: "catalog.collision",
      message: `tool name collision: "file_read" from builtin and "File-Read" from authored (${path}) are the same name after normalization ("file_read"); rename the authored tool in ${path} (no source has priority)`,
    });
  });

  test("a collision between two authored tools names both manifests", async () => {
    await using ws = tempDir();
    const a = tool(ws.path, "a", { name: "deploy-site", description: "d", input_schema: { type: "object" } });
    const b = tool(ws.path, "b", { name: "deploy_site", description: "d", input_schema: { type: "object" } });
    const r = authoredSources(load(ws.path), [], () => "untrusted");
    const message = r.ok ? "" : r.refusal.message;
    expect(message).toContain(`"deploy-site" from authored (${a}) and "deploy_site" from authored (${b})`);
    expect(message).toContain(`rename one of them in ${a} or ${b}`);
  });

  test("a collision with another source (an MCP tool) names that origin", () => {
    const m = { name: "srv__x", path: "/w/tools/x/tool.json" } as Manifest;
    const other = { ...builtinSources(builtinTools)[0]!, name: "srv__X", origin: "mcp:srv" };
    expect(findCollision([m], [other])?.message).toStartWith(
      'tool name collision: "srv__X" from mcp:srv and "srv__x" from authored (/w/tools/x/tool.json)',
    );
  });

  test("the digest covers the whole manifest and the executable's content, not where the checkout is", async () => {
    await using a = tempDir();
    await using b = tempDir();
    const m = { name: "same", description: "d", input_schema: { type: "object" }, effect: "read" };
    tool(a.path, "one", m);
    const digest = (ws: string) => {
      const built = buildCatalog(load(ws).map((m) => toSource(m)));
      return built.ok ? built.value.descriptors[0]!.digest : "";
    };
    tool(b.path, "one", m);
    expect(digest(a.path)).toBe(digest(b.path));
    for (const [changed, run] of [
      [{ ...m, effect: "irreversible" }, undefined],
      [{ ...m, description: "other words" }, undefined],
      [{ ...m, approval: "never" }, undefined],
      [{ ...m, needs: { net: ["example.org:443"] } }, undefined],
      [{ ...m, command: ["./run", "--evil"] }, undefined],
      [{ ...m, timeout_secs: 5 }, undefined],
      [m, "#!/bin/sh\necho pwned\n"],
    ] as const) {
      tool(b.path, "one", changed, run);
      expect(digest(b.path)).not.toBe(digest(a.path));
      tool(b.path, "one", m);
      expect(digest(b.path)).toBe(digest(a.path));
    }
  });

  test("a script handed to an interpreter is covered too", async () => {
    await using ws = tempDir();
    const m = { name: "py", description: "d", input_schema: { type: "object" }, command: ["sh", "./main.sh"] };
    tool(ws.path, "py", m);
    writeFileSync(join(ws.path, "tools/py/main.sh"), "echo '{}'\n");
    const before = load(ws.path)[0]!.identity;
    writeFileSync(join(ws.path, "tools/py/main.sh"), "echo '{\"pwned\":1}'\n");
    const after = load(ws.path)[0]!.identity;
    expect(Object.keys(after.files as object)).toEqual(["tools/py/main.sh"]);
    expect(after.files).not.toEqual(before.files);
  });
});

describe("a call through the real launcher", () => {
  async function call(ws: string, name: string, args: unknown) {
    const m = load(ws).find((x) => x.name === name)!;
    const ctx = {
      workspace: ws,
      stateDir: join(ws, ".toolgate"),
      processes: processRunner({
        parentEnv: {},
        stateDir: join(ws, ".toolgate"),
        sandboxMode: "off",
        sandbox: undefined,
        secrets: {},
        signal: new AbortController().signal,
      }),
    } as unknown as ToolContext;
    return runAuthored(m, args, ctx);
  }
  const emitIn = (ws: string) => cpSync(join(FIXTURES, "emit"), join(ws, "tools", "emit"), { recursive: true });

  test("stdout past the launcher's 12,000-character tail is read whole from the artifact", async () => {
    await using ws = tempDir();
    emitIn(ws.path);
    const r = await call(ws.path, "emit", { pad: 40_000 });
    expect(r).toEqual({ ok: true, value: { pad: "x".repeat(40_000) } });
  });

  test("more than 1 MiB of stdout is refused unread", async () => {
    await using ws = tempDir();
    emitIn(ws.path);
    const r = await call(ws.path, "emit", { pad: 1_100_000 });
    expect(r.ok ? "" : r.refusal.code).toBe("authored.output_too_large");
  });

  test("a failed run reports at most the last 2,000 characters of stderr, and says so", async () => {
    await using ws = tempDir();
    emitIn(ws.path);
    const r = await call(ws.path, "emit", { stderr: `${"a".repeat(5000)}THE END`, exit: 2 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const d = r.refusal.details as { code: number; stderr: string; stderr_truncated: boolean };
    expect([r.refusal.code, d.code, d.stderr.length, d.stderr.endsWith("THE END"), d.stderr_truncated]).toEqual([
      "authored.exit",
      2,
      STDERR_TAIL_CHARS,
      true,
      true,
    ]);
  });

  test("a signal is an authored.exit naming it", async () => {
    await using ws = tempDir();
    tool(ws.path, "k", { name: "k", description: "d", input_schema: { type: "object" } }, "#!/bin/sh\nkill -9 $$\n");
    const r = await call(ws.path, "k", {});
    expect(r.ok ? null : [r.refusal.code, r.refusal.message]).toEqual(["authored.exit", "k was ended by SIGKILL"]);
  });

  test("an executable removed after boot is a launch refusal without the launcher's details", async () => {
    await using ws = tempDir();
    tool(ws.path, "gone", { name: "gone", description: "d", input_schema: { type: "object" } });
    const m = load(ws.path)[0]!;
    rmSync(join(ws.path, "tools/gone/run"));
    const ctx = {
      workspace: ws.path,
      processes: processRunner({
        parentEnv: {},
        stateDir: join(ws.path, ".toolgate"),
        sandboxMode: "off",
        sandbox: undefined,
        secrets: {},
        signal: new AbortController().signal,
      }),
    } as unknown as ToolContext;
    const r = await runAuthored(m, {}, ctx);
    expect(r.ok ? null : r.refusal).toEqual({
      code: "launch.spawn_failed",
      message: 'gone: cannot start "tools/gone/run": no such file (or its interpreter is missing)',
    });
  });
});
