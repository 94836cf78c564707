// dist/toolgate is split into an entry and chunks (scripts/bundle.ts) that live in the binary's
// embedded file system: copied alone into another folder, with nothing beside it, every command
// still finds its chunk on first use (--version, a cold call, the listing, serve's help).
import { describe, expect, test } from "bun:test";
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, tempDir } from "../helpers.ts";
import pkg from "../../package.json" with { type: "json" };

describe("the binary alone", () => {
  test("--version, call, tools and serve --help run from a copy with nothing beside it", async () => {
    await using dir = tempDir();
    await using ws = tempDir();
    const bin = join(dir.path, "toolgate");
    copyFileSync(BIN, bin);
    writeFileSync(join(ws.path, "a.txt"), "hello\n");
    const env = { PATH: "/usr/bin:/bin", HOME: ws.path, CI: "true" };
    const run = (...argv: string[]) => {
      const r = Bun.spawnSync([bin, ...argv], { cwd: ws.path, env });
      return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
    };
    expect(run("--version")).toEqual({ code: 0, out: `toolgate ${pkg.version}\n`, err: "" });
    const call = run("call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read");
    expect([call.code, JSON.parse(call.out).payload.content]).toEqual([0, "1\thello"]);
    const tools = run("tools", "--json");
    expect(tools.code).toBe(0);
    expect(
      tools.out
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).name),
    ).toContain("file_read");
    const serve = run("serve", "--help");
    expect([serve.code, serve.out]).toEqual([0, expect.stringContaining("USAGE toolgate serve")]);
  });
});
