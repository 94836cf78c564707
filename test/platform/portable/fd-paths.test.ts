// The portable descriptor paths (macOS and the BSDs: no /proc/self/fd), run here on Linux: a
// descriptor is where it was verified while it holds the object found there, no link on the way.
import { describe, expect, test } from "bun:test";
import {
  closeSync,
  constants,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { portableFdPaths } from "../../../src/platform/portable/fd-paths.ts";
import { tempDir } from "../../helpers.ts";

const O_DIR = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const O_FILE = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const code = (f: () => unknown) => {
  try {
    f();
    return null;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code;
  }
};

function tree(root: string) {
  const ws = join(root, "ws");
  mkdirSync(join(ws, "d"), { recursive: true });
  writeFileSync(join(ws, "d", "f"), "inside");
  mkdirSync(join(root, "out"));
  writeFileSync(join(root, "out", "f"), "outside");
  return ws;
}

describe("portableFdPaths", () => {
  test("a verified folder names what is inside it; opened there, a file is verified too", async () => {
    await using t = tempDir();
    const ws = tree(t.path);
    const fds = portableFdPaths();
    const d = openSync(join(ws, "d"), O_DIR);
    try {
      expect(fds.isAt(d, join(ws, "d"))).toBe(true);
      expect([fds.pathOf(d), fds.inDir(d, "f"), readdirSync(fds.inDir(d, "."))]).toEqual([
        join(ws, "d"),
        join(ws, "d", "f"),
        ["f"],
      ]);
      const f = fds.openIn(d, "f", O_FILE);
      expect([readFileSync(f, "utf8"), fds.pathOf(f), fds.reopenPath(f)]).toEqual([
        "inside",
        join(ws, "d", "f"),
        join(ws, "d", "f"),
      ]);
      closeSync(f);
    } finally {
      closeSync(d);
    }
  });

  test("a path through a link is not where its descriptor is", async () => {
    await using t = tempDir();
    const ws = tree(t.path);
    symlinkSync(join(t.path, "out"), join(ws, "link"));
    const fds = portableFdPaths();
    const f = openSync(join(ws, "link", "f"), O_FILE);
    try {
      expect([fds.isAt(f, join(ws, "link", "f")), fds.pathOf(f), fds.isAt(f, join(ws, "d", "f"))]).toEqual([
        false,
        null,
        false,
      ]);
      expect(fds.isAt(f, join(t.path, "out", "f"))).toBe(true);
    } finally {
      closeSync(f);
    }
  });

  test("a folder swapped for a link after its check can no longer be named, nor opened in", async () => {
    await using t = tempDir();
    const ws = tree(t.path);
    const fds = portableFdPaths();
    const d = openSync(join(ws, "d"), O_DIR);
    try {
      expect(fds.isAt(d, join(ws, "d"))).toBe(true);
      renameSync(join(ws, "d"), join(ws, "moved"));
      symlinkSync(join(t.path, "out"), join(ws, "d"));
      expect([fds.pathOf(d), code(() => fds.inDir(d, "f")), code(() => fds.openIn(d, "f", O_FILE))]).toEqual([
        null,
        "CHANGED",
        "CHANGED",
      ]);
    } finally {
      closeSync(d);
    }
  });

  test("a last name that is a link is not opened; a descriptor number reused for another folder is not the first", async () => {
    await using t = tempDir();
    const ws = tree(t.path);
    symlinkSync(join(t.path, "out", "f"), join(ws, "d", "l"));
    const fds = portableFdPaths();
    const d = openSync(join(ws, "d"), O_DIR);
    expect(fds.isAt(d, join(ws, "d"))).toBe(true);
    expect(code(() => fds.openIn(d, "l", O_FILE))).toBe("ELOOP");
    closeSync(d);
    // The lowest free number again: the same number, another folder, never verified.
    const other = openSync(join(t.path, "out"), O_DIR);
    try {
      expect(other).toBe(d);
      expect([fds.pathOf(other), code(() => fds.inDir(other, "f"))]).toEqual([null, "CHANGED"]);
    } finally {
      closeSync(other);
    }
  });
});
