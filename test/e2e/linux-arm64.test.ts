// The linux-arm64 binary, cross-compiled from this tree as `bun run release` does, run for real
// under qemu's user-mode emulator (Debian's qemu-user-static, with the arm64 C library from
// libc6-arm64-cross and libstdc++6-arm64-cross; the README's test command installs them): its
// version and target, the catalog, a file_read call, and a call to an MCP server over stdio (the
// server is a native program: the emulator runs toolgate, the kernel runs what it starts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleOptions, COMPILE, commitOf } from "../../scripts/bundle.ts";
import { ROOT, tempDir } from "../helpers.ts";

const QEMU = "/usr/bin/qemu-aarch64-static";
const LIBS = "/usr/aarch64-linux-gnu";
const ORDINARY = join(import.meta.dir, "..", "fixtures", "mcp", "ordinary.ts");
const out = mkdtempSync(join(tmpdir(), "toolgate-arm64-"));
const BIN = join(out, "toolgate-linux-arm64");

beforeAll(async () => {
  if (!existsSync(QEMU) || !existsSync(join(LIBS, "lib", "ld-linux-aarch64.so.1"))) {
    throw new Error(
      "qemu-user-static and libc6-arm64-cross are missing: npm test installs them (apt-get install -y qemu-user-static libc6-arm64-cross libstdc++6-arm64-cross)",
    );
  }
  const built = await Bun.build({
    ...bundleOptions(ROOT, { commit: commitOf(ROOT), target: "linux-arm64" }),
    compile: { ...COMPILE, target: "bun-linux-arm64", outfile: BIN },
    minify: true,
    bytecode: true,
  });
  if (!built.success) throw new Error(`the arm64 build failed: ${built.logs.join("\n")}`);
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

async function arm64(args: readonly string[], cwd: string) {
  const p = Bun.spawn([QEMU, BIN, ...args], {
    cwd,
    env: { PATH: "/usr/bin:/bin", HOME: cwd, CI: "true", TOOLGATE_SESSION: "off", QEMU_LD_PREFIX: LIBS },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  return { code, stdout, stderr };
}

describe("the linux-arm64 binary under qemu", () => {
  test("is an arm64 program, and knows its version, commit and target", async () => {
    const head = Bun.file(BIN).slice(0, 20);
    const elf = new Uint8Array(await head.arrayBuffer());
    expect([...elf.slice(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    expect(elf[18]! | (elf[19]! << 8)).toBe(183); // e_machine: EM_AARCH64
    await using d = tempDir();
    const r = await arm64(["version", "--json"], d.path);
    const pkg = await Bun.file(join(ROOT, "package.json")).json();
    expect([r.code, JSON.parse(r.stdout)]).toEqual([
      0,
      { version: pkg.version, commit: commitOf(ROOT), target: "linux-arm64" },
    ]);
  }, 60_000);

  test("lists the catalog and reads a file", async () => {
    await using d = tempDir();
    writeFileSync(join(d.path, "notes.md"), "one\ntwo\n");
    const tools = await arm64(["tools", "--json"], d.path);
    expect(tools.code).toBe(0);
    expect(
      tools.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).name),
    ).toContain("file_read");
    const r = await arm64(
      ["call", "file_read", '{"path":"notes.md"}', "--allow-read", "--approve", "file_read"],
      d.path,
    );
    expect([r.code, JSON.parse(r.stdout).payload.content]).toEqual([0, expect.stringContaining("two")]);
  }, 60_000);

  test("calls a tool of an MCP server over stdio", async () => {
    await using d = tempDir();
    writeFileSync(
      join(d.path, "toolgate.json"),
      JSON.stringify({ mcpServers: { ord: { command: process.execPath, args: [ORDINARY] } } }),
    );
    const r = await arm64(["call", "ord__weather", "{}", "--allow-run", "--approve", "all"], d.path);
    expect([r.code, JSON.parse(r.stdout)]).toEqual([
      0,
      {
        status: "success",
        tool: "ord__weather",
        payload: { content: [{ type: "text", text: "Light rain / drizzle, 11 °C" }] },
      },
    ]);
  }, 60_000);
});
