// The boot on a platform that cannot give the sandbox mode asked for: exit 5 naming the platform
// and the fix, before anything is opened or started; what it can give boots as on Linux.
import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CliError, ExitCode } from "../../src/result/result.ts";
import { boot } from "../../src/runtime/boot.ts";
import { facilitiesFor } from "../../src/platform/facilities.ts";
import { tempDir } from "../helpers.ts";

const input = (dir: string, os: string) => ({
  cwd: dir,
  env: { HOME: dir, XDG_STATE_HOME: join(dir, ".xdg") },
  permissionFlags: [],
  platform: facilitiesFor(os, "arm64"),
});

async function refusal(
  run: () => Promise<unknown>,
): Promise<{ exitCode: number; message: string; hint: string | undefined }> {
  try {
    await run();
  } catch (e) {
    if (e instanceof CliError) return { exitCode: e.exitCode, message: e.message, hint: e.hint };
    throw e;
  }
  throw new Error("the boot did not fail");
}

describe("a sandbox mode the platform cannot give", () => {
  test.each([
    ["darwin", "product"],
    ["darwin", "bench"],
    ["win32", "product"],
  ])("%s, %s: the boot fails (exit 5) naming the platform and the fix, and nothing is made", async (os, mode) => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "toolgate.json"), JSON.stringify({ sandbox: mode }));
    expect(await refusal(() => boot(input(dir.path, os)))).toEqual({
      exitCode: ExitCode.boot,
      message: `the sandbox mode "${mode}" needs Linux (bubblewrap); on ${os} set "sandbox": "off" in toolgate.json, or run toolgate on Linux: no command runs with less isolation than asked`,
      hint: `"sandbox": "off" runs commands with the scrubbed environment only (no isolation); docs/security.md has what each platform gets`,
    });
    expect(existsSync(join(dir.path, ".toolgate"))).toBe(false);
  });

  test("darwin, off: boots, sandbox off", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "toolgate.json"), JSON.stringify({ sandbox: "off" }));
    const booted = await boot(input(dir.path, "darwin"));
    expect([booted.sandbox.mode, booted.sandbox.wrapper, booted.catalog.entries.has("bash")]).toEqual([
      "off",
      undefined,
      true,
    ]);
  });
});
