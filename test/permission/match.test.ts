import { describe, expect, test } from "bun:test";
import { decide, flagFor, pathCovers } from "../../src/permission/match.ts";
import type { Need, PermissionGrants } from "../../src/permission/types.ts";
import { tempTree } from "./helpers.ts";

const allow = (a: PermissionGrants["allow"], deny: PermissionGrants["deny"] = {}): PermissionGrants => ({
  allow: a,
  deny,
});
const read = (value: string): Need => ({ kind: "read", value });
const write = (value: string): Need => ({ kind: "write", value });

describe("paths", () => {
  test("a granted folder covers itself, its files and new files in it", async () => {
    await using t = tempTree();
    t.file("grant/sub/f");
    const g = allow({ read: [t.path("grant")], write: [t.path("grant")] });
    expect(decide(g, read(t.path("grant")), "/")).toBe("granted");
    expect(decide(g, read(t.path("grant/sub/f")), "/")).toBe("granted");
    expect(decide(g, write(t.path("grant/new.txt")), "/")).toBe("granted");
    expect(decide(g, write(t.path("grant/new/dir/f")), "/")).toBe("granted");
    expect(decide(g, read(t.root), "/")).toBe("prompt");
  });

  test("matching is by whole segments: /srv/a does not cover /srv/ab", async () => {
    await using t = tempTree();
    t.dir("srv/a");
    t.dir("srv/ab");
    const g = allow({ read: [t.path("srv/a")] });
    expect(decide(g, read(t.path("srv/ab")), "/")).toBe("prompt");
    expect(decide(g, read(t.path("srv/ab/x")), "/")).toBe("prompt");
    expect(decide(g, read(t.path("srv/a/x")), "/")).toBe("granted");
    expect([pathCovers("/", "/x"), pathCovers("/srv/a", "/srv/a"), pathCovers("/srv/a", "/srv/ab")]).toEqual([
      true,
      true,
      false,
    ]);
  });

  test("a symlink inside the grant pointing outside is not covered", async () => {
    await using t = tempTree();
    t.file("outside/file");
    t.link("grant/link", t.path("outside"));
    const g = allow({ read: [t.path("grant")] });
    expect(decide(g, read(t.path("grant/link/file")), "/")).toBe("prompt");
    expect(flagFor(read(t.path("grant/link/file")), "/")).toBe(`--allow-read=${t.path("outside/file")}`);
    expect(decide(allow({ read: [t.path("outside")] }), read(t.path("grant/link/file")), "/")).toBe("granted");
  });

  test("a new file under a symlinked parent is judged where it would be created", async () => {
    await using t = tempTree();
    t.dir("outside");
    t.dir("grant");
    t.link("grant/out", t.path("outside"));
    t.link("elsewhere/in", t.path("grant"));
    const g = allow({ write: [t.path("grant")] });
    expect(decide(g, write(t.path("grant/out/new.txt")), "/")).toBe("prompt");
    expect(decide(g, write(t.path("elsewhere/in/new.txt")), "/")).toBe("granted");
    t.link("grant/dangling", t.path("outside/new.txt"));
    expect(decide(g, write(t.path("grant/dangling")), "/")).toBe("prompt");
  });

  test("`..` cannot escape through a symlinked directory", async () => {
    await using t = tempTree();
    t.dir("outside/x");
    t.dir("grant/real");
    t.link("grant/a", t.path("outside/x"));
    const g = allow({ read: [t.path("grant")] });
    expect(decide(g, read("a/../b"), t.path("grant"))).toBe("prompt");
    expect(flagFor(read("a/../b"), t.path("grant"))).toBe(`--allow-read=${t.path("outside/b")}`);
    expect(decide(g, read("real/../b"), t.path("grant"))).toBe("granted");
    expect(decide(g, read("../grant/real"), t.path("grant"))).toBe("granted");
    expect(decide(g, read("real/../../outside"), t.path("grant"))).toBe("prompt");
  });

  test("grants are resolved too: relative to cwd, through symlinks", async () => {
    await using t = tempTree();
    t.file("real/f");
    t.link("alias", t.path("real"));
    expect(decide(allow({ read: ["alias"] }), read(t.path("real/f")), t.root)).toBe("granted");
    expect(decide(allow({ read: ["."] }), read("real/f"), t.root)).toBe("granted");
    expect(decide(allow({ read: ["real/../alias/"] }), read(t.path("real/f")), t.root)).toBe("granted");
  });

  test("deny wins over allow, also when reached through a symlink", async () => {
    await using t = tempTree();
    t.file("srv/secret/key");
    t.file("srv/public/f");
    t.link("srv/public/peek", t.path("srv/secret"));
    const g = allow({ read: true }, { read: [t.path("srv/secret")] });
    expect(decide(g, read(t.path("srv/secret/key")), "/")).toBe("denied");
    expect(decide(g, read(t.path("srv/public/peek/key")), "/")).toBe("denied");
    expect(decide(g, read(t.path("srv/public/f")), "/")).toBe("granted");
    expect(decide(allow({}, { read: true }), read(t.path("srv/public/f")), "/")).toBe("denied");
  });

  test("a path with a symlink loop is refused outright", async () => {
    await using t = tempTree();
    t.link("loop", "loop");
    expect(decide(allow({ read: true }), read(t.path("loop/x")), "/")).toBe("denied");
  });
});

describe("run", () => {
  test("by bare name, and by real path", async () => {
    await using t = tempTree();
    const tool = t.file("bin/tool", "#!/bin/sh\n", 0o755);
    t.link("bin/tool-alias", tool);
    const pathEnv = t.path("bin");
    const run = (value: string): Need => ({ kind: "run", value });
    const byName = allow({ run: ["tool"] });
    const byPath = allow({ run: [tool] });
    expect(decide(byName, run("tool"), t.root)).toBe("granted");
    expect(decide(byName, run("other"), t.root)).toBe("prompt");
    expect(decide(byName, run(tool), t.root)).toBe("prompt"); // no PATH given: a name is only a name
    expect(decide(byName, run(tool), t.root, { pathEnv })).toBe("granted");
    expect(decide(byName, run(t.path("bin/tool-alias")), t.root, { pathEnv })).toBe("granted");
    expect(decide(byPath, run("bin/tool"), t.root)).toBe("granted");
    expect(decide(byPath, run("tool"), t.root)).toBe("prompt");
    expect(decide(byPath, run("tool"), t.root, { pathEnv })).toBe("granted");
    // A same-named program elsewhere is not the granted one.
    const impostor = t.file("evil/tool", "#!/bin/sh\n", 0o755);
    expect(decide(byName, run(impostor), t.root, { pathEnv })).toBe("prompt");
  });

  test("a deny by name refuses every path to a program of that name", async () => {
    await using t = tempTree();
    const impostor = t.file("evil/bash", "#!/bin/sh\n", 0o755);
    expect(decide(allow({ run: true }, { run: ["bash"] }), { kind: "run", value: impostor }, t.root)).toBe("denied");
    expect(decide(allow({ run: true }, { run: ["bash"] }), { kind: "run", value: "bash" }, t.root)).toBe("denied");
  });
});

describe("net", () => {
  test.each([
    ["example.com", "example.com:443", "granted"],
    ["example.com", "example.com", "granted"],
    ["example.com:443", "example.com:443", "granted"],
    ["example.com:443", "example.com:80", "prompt"],
    ["example.com:443", "example.com", "prompt"],
    ["EXAMPLE.com", "example.COM:8080", "granted"],
    ["example.com", "api.example.com", "prompt"],
    ["[::1]", "[::1]:8080", "granted"],
    ["[::1]:8080", "[0:0::1]:8080", "granted"],
    ["[::1]:8080", "[::1]:9090", "prompt"],
    ["127.0.0.1", "127.1:80", "granted"],
    ["bücher.de", "xn--bcher-kva.de:443", "granted"],
    // localhost is loopback by definition (RFC 6761): its grant covers the loopback addresses on that port.
    ["localhost:3000", "localhost:3000", "granted"],
    ["localhost:3000", "127.0.0.1:3000", "granted"],
    ["localhost:3000", "[::1]:3000", "granted"],
    ["localhost:3000", "127.0.0.1:3001", "prompt"],
    ["localhost:3000", "127.0.0.2:3000", "prompt"],
    ["127.0.0.1:3000", "localhost:3000", "prompt"],
    ["app.localhost:3000", "127.0.0.1:3000", "prompt"],
  ] as const)("allow %s, need %s: %s", (grant, need, expected) => {
    expect(decide(allow({ net: [grant] }), { kind: "net", value: need }, "/")).toBe(expected);
  });

  test.each([
    ["example.com", "example.com:443", "denied"],
    ["example.com:443", "example.com:443", "denied"],
    ["example.com:443", "example.com:80", "granted"],
    ["example.com:443", "example.com", "denied"], // a portless need means any port
    ["[::1]", "[::1]:22", "denied"],
    // A deny of localhost or of an address it leads to refuses both (denying errs wide).
    ["localhost:3000", "127.0.0.1:3000", "denied"],
    ["127.0.0.1:3000", "localhost:3000", "denied"],
    ["[::1]", "localhost:3000", "denied"],
    ["127.0.0.1:3000", "localhost:3001", "granted"],
  ] as const)("deny %s, need %s: %s", (deny, need, expected) => {
    expect(decide(allow({ net: true }, { net: [deny] }), { kind: "net", value: need }, "/")).toBe(expected);
  });

  test("a malformed host is refused, not prompted", () => {
    expect(decide(allow({ net: true }), { kind: "net", value: "::1" }, "/")).toBe("denied");
    expect(decide(allow({ net: true }), { kind: "net", value: "a.com/x" }, "/")).toBe("denied");
  });
});

describe("env", () => {
  test.each([
    ["HOME", "HOME", "granted"],
    ["HOME", "HOMEDIR", "prompt"],
    ["AWS_*", "AWS_REGION", "granted"],
    ["AWS_*", "AWS_", "granted"],
    ["AWS_*", "AWS", "prompt"],
    ["home", "HOME", "prompt"],
  ] as const)("allow %s, need %s: %s", (grant, need, expected) => {
    expect(decide(allow({ env: [grant] }), { kind: "env", value: need }, "/")).toBe(expected);
  });

  test("a wildcard deny beats an exact allow", () => {
    expect(decide(allow({ env: ["AWS_SECRET"] }, { env: ["AWS_*"] }), { kind: "env", value: "AWS_SECRET" }, "/")).toBe(
      "denied",
    );
  });
});

describe("flagFor", () => {
  test("names the real path of a file, existing or not", async () => {
    await using t = tempTree();
    t.dir("real");
    t.link("alias", t.path("real"));
    expect(flagFor(read("alias/new.txt"), t.root)).toBe(`--allow-read=${t.path("real/new.txt")}`);
    expect(flagFor(write("alias"), t.root)).toBe(`--allow-write=${t.path("real")}`);
    expect(flagFor(read("/a b/it's"), "/")).toBe(`--allow-read='/a b/it'\\''s'`);
  });

  test.each([
    [{ kind: "run", value: "bash" }, "--allow-run=bash"],
    [{ kind: "net", value: "Example.com:443" }, "--allow-net=example.com:443"],
    [{ kind: "net", value: "[0::1]:8080" }, "--allow-net='[::1]:8080'"],
    [{ kind: "env", value: "HOME" }, "--allow-env=HOME"],
  ] as const)("%o → %s", (need, flag) => {
    expect(flagFor(need, "/")).toBe(flag);
  });
});

describe("a refusal's flag, written from the caller's folder", () => {
  test("inside the workspace: relative to the caller's folder (up with ..); elsewhere, or asked from outside: the real path", async () => {
    await using t = tempTree();
    t.file("ws/sub/a");
    t.file("ws/top");
    t.file("other/x");
    const ws = t.path("ws");
    expect(flagFor(read(t.path("ws/sub/a")), ws, ws)).toBe("--allow-read=sub/a");
    expect(flagFor(read(t.path("ws/sub/a")), ws, t.path("ws/sub"))).toBe("--allow-read=a");
    expect(flagFor(write(t.path("ws/top")), ws, t.path("ws/sub"))).toBe("--allow-write=../top");
    expect(flagFor(read(ws), ws, ws)).toBe("--allow-read=.");
    expect(flagFor(read(t.path("other/x")), ws, ws)).toBe(`--allow-read=${t.path("other/x")}`);
    expect(flagFor(read(t.path("ws/top")), ws, t.path("other"))).toBe(`--allow-read=${t.path("ws/top")}`);
    expect(flagFor({ kind: "run", value: "bash" }, ws, ws)).toBe("--allow-run=bash");
  });

  test("a name that needs quoting is quoted as a relative path too", async () => {
    await using t = tempTree();
    t.file("ws/it's here");
    expect(flagFor(read(t.path("ws/it's here")), t.path("ws"), t.path("ws"))).toBe(`--allow-read='it'\\''s here'`);
  });
});
