// install.sh against a release served on loopback: it picks this machine's binary, checks it
// against SHA256SUMS and installs it; a tampered binary, or a release without this platform, is
// refused with nothing installed and an old binary left as it was.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, ROOT, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const file = `toolgate-linux-${process.arch}`;
const binary = await Bun.file(BIN).bytes();
const sum = new Bun.CryptoHasher("sha256").update(binary).digest("hex");
const tampered = binary.slice();
tampered[4096]! ^= 1;
/** What the server answers, per release: the honest one, one with a changed byte, one without this platform. */
const releases: Record<string, Record<string, Uint8Array | string>> = {
  good: { [file]: binary, SHA256SUMS: `${sum}  ${file}\n` },
  tampered: { [file]: tampered, SHA256SUMS: `${sum}  ${file}\n` },
  other: { "toolgate-darwin-arm64": binary, SHA256SUMS: `${sum}  toolgate-darwin-arm64\n` },
};
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(req) {
    const [, which, name] = new URL(req.url).pathname.split("/");
    const body = releases[which ?? ""]?.[name ?? ""];
    return body === undefined ? new Response("not found", { status: 404 }) : new Response(body);
  },
});
afterAll(async () => {
  server.stop(true);
});

/** Async: the release is served from this process, which a synchronous spawn would block. */
async function install(which: string, dir: string) {
  const p = Bun.spawn(["sh", join(ROOT, "install.sh")], {
    env: {
      PATH: "/usr/bin:/bin",
      HOME: dir,
      TOOLGATE_DOWNLOAD_BASE: `http://127.0.0.1:${server.port}/${which}`,
      TOOLGATE_INSTALL_DIR: join(dir, "bin"),
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
  return { code, err };
}

describe("install.sh", () => {
  test("downloads this platform's binary, checks it and installs it where asked", async () => {
    await using d = tempDir();
    const r = await install("good", d.path);
    expect(r.code).toBe(0);
    expect(r.err).toContain(`downloading ${file}`);
    const v = Bun.spawnSync([join(d.path, "bin", "toolgate"), "version", "--json"]);
    expect(JSON.parse(v.stdout.toString()).target).toBe(`linux-${process.arch}`);
    expect(readdirSync(join(d.path, "bin"))).toEqual(["toolgate"]);
  }, 60_000);

  test("a binary that does not match SHA256SUMS is refused, and the installed one is left as it was", async () => {
    await using d = tempDir();
    mkdirSync(join(d.path, "bin"));
    writeFileSync(join(d.path, "bin", "toolgate"), "old\n");
    const r = await install("tampered", d.path);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`checksum mismatch for ${file} (expected ${sum}, got `);
    expect(r.err).toContain("nothing was installed");
    expect(readdirSync(join(d.path, "bin"))).toEqual(["toolgate"]);
    expect(await Bun.file(join(d.path, "bin", "toolgate")).text()).toBe("old\n");
  }, 60_000);

  test("a release without this platform says so and installs nothing", async () => {
    await using d = tempDir();
    const r = await install("other", d.path);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`lists no ${file}: this platform has no build in that release`);
    expect(existsSync(join(d.path, "bin"))).toBe(false);
  });

  test("an unreachable release is named", async () => {
    await using d = tempDir();
    const r = await install("missing", d.path);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`cannot download http://127.0.0.1:${server.port}/missing/SHA256SUMS`);
  });
});
