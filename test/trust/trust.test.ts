import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConfigFile } from "../../src/config/file.ts";
import { writeRecord } from "../../src/trust/store.ts";
import { trustDigest, trustedBy, trustOf } from "../../src/trust/trust.ts";
import { tempDir } from "../helpers.ts";

const DIGEST = "d".repeat(64);
const fileAt = (path: string, via: ConfigFile["via"]): ConfigFile => ({
  path,
  via,
  data: {},
  digest: DIGEST,
  lineOf: () => undefined,
});

describe("trustedBy", () => {
  test("--config is the user's own; a found file is not, until recorded or named by TOOLGATE_TRUST", async () => {
    await using ws = tempDir();
    await using home = tempDir();
    const path = join(ws.path, "toolgate.json");
    writeFileSync(path, "{}");
    const env = { HOME: home.path };
    expect(trustedBy(fileAt(path, "flag"), { env, cwd: ws.path, workspace: ws.path })).toBe("flag");
    expect(trustedBy(fileAt(path, "search"), { env, cwd: ws.path, workspace: ws.path })).toBeNull();
    expect(
      trustedBy(fileAt(path, "search"), {
        env: { ...env, TOOLGATE_TRUST: DIGEST.toUpperCase() },
        cwd: ws.path,
        workspace: ws.path,
      }),
    ).toBe("TOOLGATE_TRUST");
    expect(
      trustedBy(fileAt(path, "search"), {
        env: { ...env, TOOLGATE_TRUST: "e".repeat(64) },
        cwd: ws.path,
        workspace: ws.path,
      }),
    ).toBeNull();
    writeRecord(join(home.path, ".local", "state", "toolgate"), {
      path,
      real: path,
      workspace: ws.path,
      digest: DIGEST,
      trusted_ms: 0,
    });
    expect(trustedBy(fileAt(path, "search"), { env, cwd: ws.path, workspace: ws.path })).toBe("record");
    // The record lives under HOME from the injected environment: another HOME knows nothing of it.
    expect(trustedBy(fileAt(path, "search"), { env: { HOME: ws.path }, cwd: ws.path, workspace: ws.path })).toBeNull();
  });

  test("$TOOLGATE_CONFIG is the user's own unless it lies in the checkout or the --workspace folder", async () => {
    await using ws = tempDir();
    await using mine = tempDir();
    mkdirSync(join(ws.path, ".git"));
    mkdirSync(join(ws.path, "sub"));
    const env = { HOME: mine.path };
    expect(
      trustedBy(fileAt(join(mine.path, "c.json"), "env"), { env, cwd: join(ws.path, "sub"), workspace: ws.path }),
    ).toBe("user-env");
    expect(
      trustedBy(fileAt(join(ws.path, "c.json"), "env"), { env, cwd: join(ws.path, "sub"), workspace: ws.path }),
    ).toBeNull();
    expect(
      trustedBy(fileAt(join(mine.path, "c.json"), "env"), {
        env,
        cwd: ws.path,
        workspaceFlag: mine.path,
        workspace: mine.path,
      }),
    ).toBeNull();
    // The workspace it would use (its own "workspace" key resolved) holds it: not the user's own.
    expect(
      trustedBy(fileAt(join(mine.path, "c.json"), "env"), { env, cwd: join(ws.path, "sub"), workspace: "/" }),
    ).toBeNull();
  });
});

describe("trust covers the authored tools it saw (trustOf, trustDigest)", () => {
  const TOOLS = { b: "2".repeat(64), a: "1".repeat(64) };

  test("the pin is the config's digest alone without tools; with tools, one sha256 over the config's and theirs, in name order", () => {
    expect(trustDigest(DIGEST, {})).toBe(DIGEST);
    const text = `toolgate-trust-v1\nconfig ${DIGEST}\ntool a ${"1".repeat(64)}\ntool b ${"2".repeat(64)}\n`;
    expect(trustDigest(DIGEST, TOOLS)).toBe(new Bun.CryptoHasher("sha256").update(text).digest("hex"));
    expect(trustDigest(DIGEST, { ...TOOLS, b: "3".repeat(64) })).not.toBe(trustDigest(DIGEST, TOOLS));
  });

  test("TOOLGATE_TRUST: the config's own digest covers no tool; the printed digest covers exactly the tools it was made from", async () => {
    await using ws = tempDir();
    await using home = tempDir();
    const path = join(ws.path, "toolgate.json");
    const input = (pin: string, tools: Record<string, string> | null) => ({
      env: { HOME: home.path, TOOLGATE_TRUST: pin },
      cwd: ws.path,
      workspace: ws.path,
      authoredDigests: () => tools,
    });
    expect(trustOf(fileAt(path, "search"), input(DIGEST, TOOLS))).toEqual({ by: "TOOLGATE_TRUST", tools: {} });
    expect(trustOf(fileAt(path, "search"), input(trustDigest(DIGEST, TOOLS), TOOLS))).toEqual({
      by: "TOOLGATE_TRUST",
      tools: TOOLS,
    });
    // A tool added or changed since the pin was printed: the pin trusts nothing, the config included.
    expect(
      trustOf(fileAt(path, "search"), input(trustDigest(DIGEST, TOOLS), { ...TOOLS, c: "3".repeat(64) })),
    ).toBeNull();
    expect(trustOf(fileAt(path, "search"), input(trustDigest(DIGEST, TOOLS), null))).toBeNull();
  });

  test("a record covers the tools it lists (none for a record of an older shape); --config covers all", async () => {
    await using ws = tempDir();
    await using home = tempDir();
    const path = join(ws.path, "toolgate.json");
    const state = join(home.path, ".local", "state", "toolgate");
    const input = { env: { HOME: home.path }, cwd: ws.path, workspace: ws.path };
    writeRecord(state, { path, real: path, workspace: ws.path, digest: DIGEST, trusted_ms: 0 });
    expect(trustOf(fileAt(path, "search"), input)).toEqual({ by: "record", tools: {} });
    writeRecord(state, { path, real: path, workspace: ws.path, digest: DIGEST, trusted_ms: 0, tools: TOOLS });
    expect(trustOf(fileAt(path, "search"), input)).toEqual({ by: "record", tools: TOOLS });
    // The config's own pin beside a record: the record's tools still count.
    expect(trustOf(fileAt(path, "search"), { ...input, env: { ...input.env, TOOLGATE_TRUST: DIGEST } })).toEqual({
      by: "record",
      tools: TOOLS,
    });
    expect(trustOf(fileAt(path, "flag"), input)).toEqual({ by: "flag", tools: "all" });
  });
});
