// openat2 below a folder: one call that refuses any symlink on the way and any escape by "..".
import { expect, test } from "bun:test";
import { closeSync, constants, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fdPath } from "../../../src/fs/opened.ts";
import { loadOpenBeneath } from "../../../src/platform/linux/openat2.ts";
import { OPEN_FLAGS } from "../../../src/tools/search/scan.ts";
import { tempDir } from "../../helpers.ts";

test("a file below the folder opens; a symlink anywhere on the way, or .. out of it, is refused", async () => {
  const open = await loadOpenBeneath(OPEN_FLAGS);
  if (open === null) throw new Error("openat2 is not available on this kernel (Linux 5.6+ is needed for this test)");
  await using t = tempDir();
  const ws = join(t.path, "ws");
  mkdirSync(join(ws, "d"), { recursive: true });
  writeFileSync(join(ws, "d", "f"), "inside");
  mkdirSync(join(t.path, "out"));
  writeFileSync(join(t.path, "out", "f"), "outside");
  symlinkSync(join(t.path, "out"), join(ws, "link"));
  symlinkSync("d/f", join(ws, "flink"));
  const root = openSync(ws, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    const fd = open(root, "d/f");
    expect(fd).toBeGreaterThanOrEqual(0);
    expect([fdPath(fd), readFileSync(fd, "utf8")]).toEqual([join(ws, "d", "f"), "inside"]);
    closeSync(fd);
    expect([open(root, "link/f"), open(root, "flink"), open(root, "../out/f"), open(root, "missing")]).toEqual([
      -1, -1, -1, -1,
    ]);
  } finally {
    closeSync(root);
  }
});
