// What /proc's texts say: a process's stat line, the bound Unix sockets.
import { describe, expect, test } from "bun:test";
import { listedSocketPaths, parseStat } from "../../../src/platform/linux/procfs.ts";

describe("parseStat", () => {
  test("reads the fields after a command name holding spaces and parentheses", () => {
    const line = "4242 (a) b (c) S 17 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 1 1 1";
    expect(parseStat(line)).toEqual({ pid: 4242, state: "S", ppid: 17, pgid: 4242, sid: 4242, start: 987654 });
  });

  test("refuses a truncated line", () => {
    expect(parseStat("4242 (sh")).toBeNull();
  });
});

describe("listedSocketPaths", () => {
  test("the host's bound socket paths are read from /proc/net/unix: abstract and relative names left out", () => {
    const text = [
      "Num       RefCount Protocol Flags    Type St Inode Path",
      "0000000000000000: 00000002 00000000 00010000 0001 01 20000 /run/a.sock",
      "0000000000000000: 00000002 00000000 00010000 0001 01 20001 @/tmp/.X11-unix/X0",
      "0000000000000000: 00000002 00000000 00010000 0001 01 20002 /var/lib/with space.sock",
      "0000000000000000: 00000003 00000000 00000000 0001 03 20003",
      "0000000000000000: 00000002 00000000 00010000 0001 01 20004 relative.sock",
      "0000000000000000: 00000003 00000000 00000000 0001 03 20005 /run/a.sock",
    ].join("\n");
    expect(listedSocketPaths(text)).toEqual(["/run/a.sock", "/var/lib/with space.sock"]);
  });
});
