// What each platform gives toolgate, and the boot's words for a sandbox mode it cannot have.
import { describe, expect, test } from "bun:test";
import { facilitiesFor, sandboxUnavailable } from "../../src/platform/facilities.ts";
import { seccompSupported } from "../../src/platform/linux/seccomp.ts";

describe("facilitiesFor", () => {
  test("Linux gets everything", () => {
    expect(facilitiesFor("linux", "x64")).toEqual({
      os: "linux",
      bubblewrap: true,
      seccomp: true,
      subreaper: true,
      procfs: true,
      openat2: true,
      libc: true,
      processGroups: true,
    });
  });

  test.each(["darwin", "freebsd"])("%s: process groups only", (os) => {
    expect(facilitiesFor(os, "arm64")).toEqual({
      os,
      bubblewrap: false,
      seccomp: false,
      subreaper: false,
      procfs: false,
      openat2: false,
      libc: false,
      processGroups: true,
    });
  });

  test("win32: not even process groups", () => {
    expect(facilitiesFor("win32", "x64")).toEqual({
      os: "win32",
      bubblewrap: false,
      seccomp: false,
      subreaper: false,
      procfs: false,
      openat2: false,
      libc: false,
      processGroups: false,
    });
  });

  test.each(["x64", "arm64", "ia32", "riscv64", "ppc64"])(
    "Linux on %s has a seccomp filter exactly when one is written for it",
    (arch) => {
      expect(facilitiesFor("linux", arch).seccomp).toBe(seccompSupported(arch));
    },
  );
});

describe("sandboxUnavailable", () => {
  test.each(["product", "bench"])("%s on darwin is refused naming the platform and the fix", (mode) => {
    expect(sandboxUnavailable(mode, facilitiesFor("darwin", "arm64"))).toEqual({
      message: `the sandbox mode "${mode}" needs Linux (bubblewrap); on darwin set "sandbox": "off" in toolgate.json, or run toolgate on Linux: no command runs with less isolation than asked`,
      hint: `"sandbox": "off" runs commands with the scrubbed environment only (no isolation); docs/security.md has what each platform gets`,
    });
  });

  test("off is had everywhere; product on Linux is the probe's to judge", () => {
    expect([
      sandboxUnavailable("off", facilitiesFor("win32", "x64")),
      sandboxUnavailable("product", facilitiesFor("linux", "arm64")),
    ]).toEqual([null, null]);
    expect(sandboxUnavailable("bench", facilitiesFor("win32", "x64"))?.message).toContain(
      'on win32 set "sandbox": "off"',
    );
  });
});
