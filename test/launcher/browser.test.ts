// Which program opens the authorization URL: $BROWSER when set, else xdg-open found on PATH when
// a display is there, else none (a headless machine: the URL on stderr is all there is).
import { describe, expect, test } from "bun:test";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { browserCommand, openBrowser } from "../../src/launcher/browser.ts";
import { tempDir } from "../helpers.ts";

describe("browserCommand", () => {
  test("$BROWSER wins, split into its words", () => {
    expect(browserCommand({ BROWSER: "firefox --new-tab", DISPLAY: ":0", PATH: "/usr/bin" })).toEqual(["firefox", "--new-tab"]);
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
    expect(openBrowser("http://127.0.0.1:1/authorize?x=1", { BROWSER: join(d.path, "b.sh"), PATH: "/usr/bin:/bin" })).toBe(true);
    for (let i = 0; i < 100 && !(await Bun.file(out).exists()); i++) await Bun.sleep(20);
    expect(await Bun.file(out).text()).toBe("http://127.0.0.1:1/authorize?x=1");
    expect(openBrowser("http://x", { PATH: "/usr/bin" })).toBe(false);
  });
});
