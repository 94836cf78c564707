// Which program opens the authorization URL: $BROWSER when set, else xdg-open found on PATH when
// a display is there, else none (a headless machine: the URL on stderr is all there is).
import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { browserCommand, browserEnv, openBrowser } from "../../src/launcher/browser.ts";
import { tempDir } from "../helpers.ts";
import { waitFor } from "../support/wait.ts";

describe("browserCommand", () => {
  test("$BROWSER wins, split into its words", () => {
    expect(browserCommand({ BROWSER: "firefox --new-tab", DISPLAY: ":0", PATH: "/usr/bin" })).toEqual([
      "firefox",
      "--new-tab",
    ]);
  });

  test("xdg-open on PATH with a display; nothing without one", async () => {
    await using d = tempDir();
    writeFileSync(join(d.path, "xdg-open"), "#!/bin/sh\n");
    chmodSync(join(d.path, "xdg-open"), 0o755);
    expect(browserCommand({ DISPLAY: ":0", PATH: `relative:${d.path}` })).toEqual([join(d.path, "xdg-open")]);
    expect(browserCommand({ WAYLAND_DISPLAY: "wayland-0", PATH: d.path })).toEqual([join(d.path, "xdg-open")]);
    expect(browserCommand({ PATH: d.path })).toBeNull();
    expect(browserCommand({ DISPLAY: ":0", PATH: "/nonexistent" })).toBeNull();
  });

  test("openBrowser starts the program with the URL and says so", async () => {
    await using d = tempDir();
    const out = join(d.path, "opened");
    writeFileSync(join(d.path, "b.sh"), `#!/bin/sh\nprintf '%s' "$1" > ${out}\n`);
    chmodSync(join(d.path, "b.sh"), 0o755);
    expect(
      openBrowser("http://127.0.0.1:1/authorize?x=1", { BROWSER: join(d.path, "b.sh"), PATH: "/usr/bin:/bin" }),
    ).toBe(true);
    await waitFor("the browser's file", () => Bun.file(out).exists());
    expect(await Bun.file(out).text()).toBe("http://127.0.0.1:1/authorize?x=1");
    expect(openBrowser("http://x", { PATH: "/usr/bin" })).toBe(false);
  });

  test("the browser gets the desktop session's variables only, never toolgate's secrets", async () => {
    await using d = tempDir();
    const out = join(d.path, "env");
    writeFileSync(join(d.path, "b.sh"), `#!/bin/sh\nenv | sort > ${out}.tmp && mv ${out}.tmp ${out}\n`);
    chmodSync(join(d.path, "b.sh"), 0o755);
    const env = {
      BROWSER: join(d.path, "b.sh"),
      PATH: "/usr/bin:/bin",
      DISPLAY: ":0",
      HOME: d.path,
      CI_MCP_SECRET: "s3cret-token",
      GITHUB_TOKEN: "ghp_x",
    };
    expect(openBrowser("http://x", env)).toBe(true);
    await waitFor("the browser's file", () => Bun.file(out).exists());
    const seen = (await Bun.file(out).text())
      .split("\n")
      .filter(Boolean)
      .map((l) => l.split("=")[0]!);
    expect(
      seen.filter((k) => ["BROWSER", "PATH", "DISPLAY", "HOME", "CI_MCP_SECRET", "GITHUB_TOKEN"].includes(k)),
    ).toEqual(["BROWSER", "DISPLAY", "HOME", "PATH"]);
    expect(browserEnv({ ...env, LD_PRELOAD: "/x.so" })).toEqual({
      BROWSER: env.BROWSER,
      PATH: "/usr/bin:/bin",
      DISPLAY: ":0",
      HOME: d.path,
    });
  });
});
