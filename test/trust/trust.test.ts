import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ConfigFile } from "../../src/config/file.ts";
import { writeRecord } from "../../src/trust/store.ts";
import { trustedBy } from "../../src/trust/trust.ts";
import { tempDir } from "../helpers.ts";

const DIGEST = "d".repeat(64);
const fileAt = (path: string, via: ConfigFile["via"]): ConfigFile => ({ path, via, data: {}, digest: DIGEST, lineOf: () => undefined });

describe("trustedBy", () => {
  test("--config is the user's own; a found file is not, until recorded or named by TOOLGATE_TRUST", async () => {
    await using ws = tempDir();
    await using home = tempDir();
    const path = join(ws.path, "toolgate.json");
    writeFileSync(path, "{}");
    const env = { HOME: home.path };
    expect(trustedBy(fileAt(path, "flag"), { env, cwd: ws.path, workspace: ws.path })).toBe("flag");
    expect(trustedBy(fileAt(path, "search"), { env, cwd: ws.path, workspace: ws.path })).toBeNull();
    expect(trustedBy(fileAt(path, "search"), { env: { ...env, TOOLGATE_TRUST: DIGEST.toUpperCase() }, cwd: ws.path, workspace: ws.path })).toBe("TOOLGATE_TRUST");
    expect(trustedBy(fileAt(path, "search"), { env: { ...env, TOOLGATE_TRUST: "e".repeat(64) }, cwd: ws.path, workspace: ws.path })).toBeNull();
    writeRecord(join(home.path, ".local", "state", "toolgate"), { path, real: path, workspace: ws.path, digest: DIGEST, trusted_ms: 0 });
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
    expect(trustedBy(fileAt(join(mine.path, "c.json"), "env"), { env, cwd: join(ws.path, "sub"), workspace: ws.path })).toBe("user-env");
    expect(trustedBy(fileAt(join(ws.path, "c.json"), "env"), { env, cwd: join(ws.path, "sub"), workspace: ws.path })).toBeNull();
    expect(trustedBy(fileAt(join(mine.path, "c.json"), "env"), { env, cwd: ws.path, workspaceFlag: mine.path, workspace: mine.path })).toBeNull();
    // The workspace it would use (its own "workspace" key resolved) holds it: not the user's own.
    expect(trustedBy(fileAt(join(mine.path, "c.json"), "env"), { env, cwd: join(ws.path, "sub"), workspace: "/" })).toBeNull();
  });
});
