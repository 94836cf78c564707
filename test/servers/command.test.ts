import { describe, expect, test } from "bun:test";
import { resolveCommand, type FindOnPath } from "../../src/servers/command.ts";

const FIXED = "/usr/bin:/bin";
// A finder over a fixed table: name -> folder it is in, and its real path.
const table: Record<string, { dir: string; real: string }> = {
  uvx: { dir: "/home/u/.local/bin", real: "/home/u/.local/bin/uvx" },
  bunx: { dir: "/home/u/.bun/bin", real: "/home/u/.bun/bin/bun" },
  sh: { dir: "/bin", real: "/usr/bin/dash" },
};
const looked: string[] = [];
const find: FindOnPath = (name, path) => {
  looked.push(path);
  const hit = table[name];
  return hit && path.split(":").includes(hit.dir) ? { dir: hit.dir, path: `${hit.dir}/${name}`, real: hit.real } : null;
};

describe("resolveCommand", () => {
  test("a path is resolved against the server's folder and not looked up", () => {
    expect(resolveCommand("./bin/server", "/ws", "/home/u/.local/bin", FIXED, find)).toEqual({
      command: "/ws/bin/server",
    });
  });
  test("a bare name on the caller's PATH: the path there, its folder, its real path when it differs", () => {
    expect(resolveCommand("uvx", "/ws", "/home/u/.local/bin:/usr/bin", FIXED, find)).toEqual({
      command: "/home/u/.local/bin/uvx",
      dir: "/home/u/.local/bin",
    });
    expect(resolveCommand("bunx", "/ws", "/home/u/.bun/bin", FIXED, find)).toEqual({
      command: "/home/u/.bun/bin/bunx",
      dir: "/home/u/.bun/bin",
      real: "/home/u/.bun/bin/bun",
    });
  });
  test("a name in a folder of the fixed PATH adds no folder; relative PATH entries are never searched", () => {
    looked.length = 0;
    expect(resolveCommand("sh", "/ws", ".::/bin", FIXED, find)).toEqual({ command: "/bin/sh", real: "/usr/bin/dash" });
    expect(looked).toEqual(["/bin:/usr/bin"]);
  });
  test("a server's own PATH (a trusted config's env.PATH) is looked in first and is the child's: no folder added for a hit in it", () => {
    looked.length = 0;
    expect(resolveCommand("uvx", "/ws", "/usr/bin", FIXED, find, "/home/u/.local/bin:/usr/bin")).toEqual({
      command: "/home/u/.local/bin/uvx",
    });
    expect(looked).toEqual(["/home/u/.local/bin:/usr/bin:/bin"]);
    // Found on the caller's PATH instead: its folder goes before the server's PATH, as before the fixed one.
    expect(resolveCommand("bunx", "/ws", "/home/u/.bun/bin", FIXED, find, "/opt/tools/bin")).toEqual({
      command: "/home/u/.bun/bin/bunx",
      dir: "/home/u/.bun/bin",
      real: "/home/u/.bun/bin/bun",
    });
  });
  test("a missing command says where it looked", () => {
    expect(resolveCommand("nope", "/ws", "/opt/x/bin", FIXED, find)).toEqual({
      command: "nope",
      problem:
        '"nope" was not found on PATH (looked in /opt/x/bin, /usr/bin, /bin); install it, or give its full path as "command"',
    });
  });
});
