// Artifact pruning: by age, then by the folder's total size (oldest first); the run's own files
// and files not named as the launcher names them are never removed.
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pruneArtifacts } from "../../src/launcher/artifacts.ts";
import { tempDir } from "../helpers.ts";

const DAY = 24 * 3600 * 1000;
const NOW = Date.UTC(2026, 0, 10);
const name = (n: number, stream = "stdout") => `${n.toString(16).padStart(32, "0")}.${stream}.log`;

function file(dir: string, n: string, bytes: number, ageMs: number): string {
  const path = join(dir, n);
  writeFileSync(path, "x".repeat(bytes));
  const t = (NOW - ageMs) / 1000;
  utimesSync(path, t, t);
  return path;
}

test("old artifacts go, then the oldest until the total fits; the run's own and foreign files stay", async () => {
  await using d = tempDir();
  const dir = join(d.path, "artifacts");
  mkdirSync(dir);
  file(dir, name(1), 10, 8 * DAY); // past the age limit
  file(dir, name(2, "stderr"), 40, 3 * DAY); // oldest within it: goes for the size
  file(dir, name(3), 40, 2 * DAY);
  const own = file(dir, name(4), 40, 9 * DAY); // the run's own: never removed, but counted
  file(dir, "notes.txt", 10, 30 * DAY); // not an artifact name
  const removed = pruneArtifacts(dir, [own], NOW, { maxAgeMs: 7 * DAY, maxBytes: 100 });
  expect(removed).toBe(2);
  expect(readdirSync(dir).sort()).toEqual([name(3), name(4), "notes.txt"].sort());
  expect(existsSync(own)).toBe(true);
});

test("a folder within both limits is left alone; a missing folder is nothing to do", async () => {
  await using d = tempDir();
  file(d.path, name(1), 10, DAY);
  expect(pruneArtifacts(d.path, [], NOW, { maxAgeMs: 7 * DAY, maxBytes: 100 })).toBe(0);
  expect(readdirSync(d.path)).toEqual([name(1)]);
  expect(pruneArtifacts(join(d.path, "none"), [], NOW)).toBe(0);
});
