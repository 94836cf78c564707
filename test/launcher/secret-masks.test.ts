// What root's sandbox masks: every file closed to others and every folder others cannot enter,
// under the walked roots; the cache is reused only while no walked folder changed.
import { expect, test } from "bun:test";
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { secretMasks, walkSecrets } from "../../src/launcher/secret-masks.ts";
import { tempDir } from "../helpers.ts";

function tree(root: string) {
  mkdirSync(join(root, "etc", "ssl", "private"), { recursive: true });
  mkdirSync(join(root, "etc", "open"), { recursive: true });
  writeFileSync(join(root, "etc", "shadow"), "root:x\n", { mode: 0o640 });
  writeFileSync(join(root, "etc", "passwd"), "root\n", { mode: 0o644 });
  writeFileSync(join(root, "etc", "open", "key"), "k\n", { mode: 0o600 });
  chmodSync(join(root, "etc", "ssl", "private"), 0o700);
  mkdirSync(join(root, "ws", "sub"), { recursive: true });
  writeFileSync(join(root, "ws", "sub", ".env"), "TOKEN=x\n", { mode: 0o600 });
}

test("files without o+r and folders without o+rx are masked; a masked folder is not entered; the workspace is not walked", async () => {
  await using dir = tempDir();
  tree(dir.path);
  const walked = walkSecrets([join(dir.path, "etc"), join(dir.path, "ws")], join(dir.path, "ws"));
  expect(walked.masks.filter((m) => m.path.startsWith(dir.path)).sort((a, b) => a.path.localeCompare(b.path))).toEqual([
    { path: join(dir.path, "etc", "open", "key"), dir: false },
    { path: join(dir.path, "etc", "shadow"), dir: false },
    { path: join(dir.path, "etc", "ssl", "private"), dir: true },
  ]);
});

test("the cache answers while nothing changed, and is walked again when a folder changes", async () => {
  await using dir = tempDir();
  tree(dir.path);
  const cache = join(dir.path, "cache");
  const roots = [join(dir.path, "etc")];
  const ours = (ms: readonly { path: string }[]) =>
    ms
      .map((m) => m.path)
      .filter((p) => p.startsWith(dir.path))
      .sort();
  const first = ours(secretMasks("/nowhere", cache, roots));
  expect(first.length).toBe(3);
  expect(ours(secretMasks("/nowhere", cache, roots))).toEqual(first);
  writeFileSync(join(dir.path, "etc", "open", "new-secret"), "s\n", { mode: 0o600 });
  expect(ours(secretMasks("/nowhere", cache, roots))).toEqual(
    [...first, join(dir.path, "etc", "open", "new-secret")].sort(),
  );
});

test("a workspace under a walked root is left out of the walk (its own cache); elsewhere one cache serves every workspace", async () => {
  await using dir = tempDir();
  tree(dir.path);
  const cache = join(dir.path, "cache");
  const roots = [dir.path];
  const ws = join(dir.path, "ws");
  expect(secretMasks(ws, cache, roots).some((m) => m.path.startsWith(`${ws}/`))).toBe(false);
  expect(secretMasks("/elsewhere/a", cache, roots).some((m) => m.path === join(ws, "sub", ".env"))).toBe(true);
  secretMasks("/elsewhere/b", cache, roots);
  expect(readdirSync(cache).length).toBe(2);
});
