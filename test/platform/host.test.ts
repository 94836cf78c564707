// The platform layer's choices: another platform gets the portable implementations and nothing
// Linux-only (no process table, no prctl, no openat2, no peer credentials, no seccomp, no sockets
// read), whatever machine asks; Linux gets /proc and the C library.
import { describe, expect, test } from "bun:test";
import { constants } from "node:fs";
import { hostPlatform, platformFor } from "../../src/platform/host.ts";

const O_PATH = 0o10000000;

describe("platformFor", () => {
  test.each([
    ["darwin", "arm64"],
    ["darwin", "x64"],
    ["win32", "x64"],
  ])("%s %s: the portable fallbacks, none of Linux's", async (os, arch) => {
    const p = platformFor(os, arch);
    const loaded = await Promise.all([p.prctl(), p.openBeneath(constants.O_RDONLY), p.peerChecks()]);
    expect({
      processes: p.processes,
      loaded,
      sockets: p.boundSockets(),
      seccomp: p.seccompFilter,
      bubblewrap: p.bubblewrap,
    }).toEqual({
      processes: null,
      loaded: [null, null, null],
      sockets: [],
      seccomp: null,
      bubblewrap: false,
    });
    // No O_PATH: a descriptor names an object by a read-only, non-blocking open, verified by its identity.
    expect(p.fds.namingFlags & O_PATH).toBe(0);
    expect(p.fds.namingFlags).toBe(constants.O_RDONLY | constants.O_NONBLOCK);
    expect(p.fds.pathOf(0)).toBeNull();
  });

  test("Linux: the process table, O_PATH, /proc/self/fd, the seccomp filter and the C library", async () => {
    const p = platformFor("linux", "x64");
    expect(p.processes?.stat(process.pid)?.pid).toBe(process.pid);
    expect(p.fds.namingFlags).toBe(O_PATH);
    expect(p.fds.inDir(7, "a")).toBe("/proc/self/fd/7/a");
    expect(p.seccompFilter).not.toBeNull();
    expect(platformFor("linux", "riscv64").seccompFilter).toBeNull();
    expect(await p.prctl()).not.toBeNull();
  });

  test("this process's platform is chosen from process.platform and process.arch", () => {
    expect([hostPlatform().os, hostPlatform().seccomp]).toEqual([
      process.platform,
      platformFor(process.platform, process.arch).seccomp,
    ]);
  });
});
