// The npm packages `bun run release` writes, for this machine: the `toolgate` launcher and the
// platform package holding dist/toolgate, packed with npm and installed from those tarballs into a
// fresh folder with npm offline (nothing fetched). `npx toolgate` then runs the binary: its version,
// and a call whose exit code and stdout come through the launcher unchanged. Without the platform
// package (optional dependencies omitted) the launcher names the package it needs.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { npmPackages, TARGETS } from "../../scripts/release-targets.ts";
import pkg from "../../package.json" with { type: "json" };
import { BIN, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const host = TARGETS.find((t) => t.name === `linux-${process.arch}`)!;

function sh(argv: string[], cwd: string, env: Record<string, string>) {
  const p = Bun.spawnSync(argv, { cwd, env: { PATH: process.env.PATH!, ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

/** Writes the packages to `dir`/npm, packs the named ones into `dir`/packs, and installs those tarballs into a fresh app. */
function install(dir: string, which: readonly string[], extra: readonly string[] = []) {
  const env = { HOME: dir, npm_config_cache: join(dir, "cache"), npm_config_update_notifier: "false" };
  for (const p of npmPackages(pkg.version, [{ target: host, file: BIN }])) {
    for (const [name, file] of Object.entries(p.files)) {
      const to = join(dir, "npm", p.folder, name);
      mkdirSync(join(to, ".."), { recursive: true });
      if (typeof file === "string") writeFileSync(to, file);
      else copyFileSync(file.copy, to);
      if (name.startsWith("bin/")) chmodSync(to, 0o755);
    }
  }
  mkdirSync(join(dir, "packs"));
  const tarballs = which.map((folder) => {
    const r = sh(["npm", "pack", join(dir, "npm", folder), "--pack-destination", join(dir, "packs")], dir, env);
    expect(r.code).toBe(0);
    return join(dir, "packs", r.out.trim().split("\n").pop()!);
  });
  const app = join(dir, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), '{"name":"app","private":true}\n');
  writeFileSync(join(app, "notes.md"), "one\ntwo\n");
  const r = sh(["npm", "install", "--offline", "--no-audit", "--no-fund", ...extra, ...tarballs], app, env);
  expect([r.code, r.err]).toEqual([0, expect.any(String)]);
  return { app, env };
}

describe("npx toolgate from the packed npm packages", () => {
  test("the launcher package declares every platform as an optional dependency; each platform package its os, cpu and libc", () => {
    const all = npmPackages(
      "1.2.3",
      TARGETS.map((t) => ({ target: t, file: BIN })),
    );
    const launcher = JSON.parse(all[0]!.files["package.json"] as string);
    expect(launcher.optionalDependencies).toEqual({
      "@toolgate/linux-x64": "1.2.3",
      "@toolgate/linux-arm64": "1.2.3",
      "@toolgate/linux-x64-musl": "1.2.3",
      "@toolgate/linux-arm64-musl": "1.2.3",
      "@toolgate/darwin-arm64": "1.2.3",
      "@toolgate/darwin-x64": "1.2.3",
      "@toolgate/win32-x64": "1.2.3",
    });
    expect(launcher.scripts).toBeUndefined(); // no install script
    const fields = all.slice(1).map((p) => {
      const j = JSON.parse(p.files["package.json"] as string);
      return [j.name, j.os, j.cpu, j.libc, Object.keys(p.files).filter((f) => f.startsWith("bin/"))];
    });
    expect(fields).toEqual([
      ["@toolgate/linux-x64", ["linux"], ["x64"], ["glibc"], ["bin/toolgate"]],
      ["@toolgate/linux-arm64", ["linux"], ["arm64"], ["glibc"], ["bin/toolgate"]],
      ["@toolgate/linux-x64-musl", ["linux"], ["x64"], ["musl"], ["bin/toolgate"]],
      ["@toolgate/linux-arm64-musl", ["linux"], ["arm64"], ["musl"], ["bin/toolgate"]],
      ["@toolgate/darwin-arm64", ["darwin"], ["arm64"], undefined, ["bin/toolgate"]],
      ["@toolgate/darwin-x64", ["darwin"], ["x64"], undefined, ["bin/toolgate"]],
      ["@toolgate/win32-x64", ["win32"], ["x64"], undefined, ["bin/toolgate.exe"]],
    ]);
  });

  test("installed offline from the tarballs, npx toolgate runs the binary: version, and a call with its exit code", async () => {
    await using d = tempDir();
    const { app, env } = install(d.path, ["toolgate", host.npm]);
    const v = sh(["npx", "--offline", "toolgate", "version", "--json"], app, env);
    expect([v.code, JSON.parse(v.out).target, JSON.parse(v.out).version]).toEqual([0, host.name, pkg.version]);
    const call = sh(
      [
        "npx",
        "--offline",
        "toolgate",
        "call",
        "file_read",
        '{"path":"notes.md"}',
        "--allow-read",
        "--approve",
        "file_read",
      ],
      app,
      { ...env, CI: "true" },
    );
    expect(call.code).toBe(0);
    expect(JSON.parse(call.out).payload.content).toContain("two");
    // A refusal's exit code comes through the launcher unchanged (permission denied: 4).
    const denied = sh(
      ["npx", "--offline", "toolgate", "call", "file_read", '{"path":"notes.md"}', "--approve", "file_read"],
      app,
      { ...env, CI: "true" },
    );
    expect([denied.code, JSON.parse(denied.out).error_code]).toEqual([4, "permission.denied"]);
  }, 120_000);

  test("without the platform package, the launcher names it and exits 1", async () => {
    await using d = tempDir();
    const { app, env } = install(d.path, ["toolgate"], ["--omit=optional"]);
    const r = sh(["npx", "--offline", "toolgate", "--version"], app, env);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`toolgate: @toolgate/${host.npm} is not installed`);
  }, 60_000);
});
