// A call's stream artifact is capped (64 MiB per stream) and says
// where it was cut, while the result's tail and totals cover the whole stream; after a run that
// wrote one, old artifacts (7 days) and the oldest past 1 GiB in all are removed.
import { beforeAll, expect, test } from "bun:test";
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { BIN, json, run, tempDir } from "../helpers.ts";
import { makeStateFolder } from "../../src/state/folder.ts";

const MiB = 1024 * 1024;
const CAP = 64 * MiB;
const GRANT = ["--allow-run=bash", "--approve", "bash"];

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

test("a stream past the cap: the artifact stops at 64 MiB with a note, the tail and totals are whole", async () => {
  await using ws = tempDir();
  const total = CAP + 3 * MiB;
  // 67 MiB of 'a', then a last line the tail must show.
  const command = `head -c ${total - 4} /dev/zero | tr '\\0' a; echo END`;
  const r = await run(["call", "bash", JSON.stringify({ command }), ...GRANT], { cwd: ws.path });
  const out = json(r);
  expect(out).toMatchObject({
    status: "success",
    payload: { stdout: { bytes: total, chars: total, truncated: true, artifactCut: true } },
  });
  expect(out.payload.stdout.tail.endsWith("aaaEND\n")).toBe(true);
  const artifact = join(ws.path, out.payload.artifacts.stdout);
  const note = `\n[toolgate: this artifact holds the first ${CAP} bytes of the stream (the cap per stream); the stream had ${total} bytes in all, and the result's tail shows its end]\n`;
  expect(statSync(artifact).size).toBe(CAP + note.length);
  const fd = openSync(artifact, "r");
  try {
    const end = Buffer.alloc(note.length + 3);
    require("node:fs").readSync(fd, end, 0, end.length, CAP - 3);
    expect(end.toString("utf8")).toBe(`aaa${note}`);
  } finally {
    closeSync(fd);
  }
});

test("after a call that wrote an artifact, those past 7 days and the oldest past 1 GiB are gone", async () => {
  await using ws = tempDir();
  // A state folder toolgate made at an earlier call, with that call's artifacts folder.
  makeStateFolder(join(ws.path, ".toolgate"));
  const dir = join(ws.path, ".toolgate", "artifacts");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const now = Date.now();
  const name = (n: number) => `${n.toString(16).padStart(32, "0")}.stdout.log`;
  /** A sparse file: its size counts toward the total without using the disk. */
  const make = (n: string, bytes: number, ageDays: number) => {
    const path = join(dir, n);
    const fd = openSync(path, "w", 0o600);
    ftruncateSync(fd, bytes);
    closeSync(fd);
    const t = (now - ageDays * 24 * 3600 * 1000) / 1000;
    utimesSync(path, t, t);
  };
  make(name(1), 10, 8); // too old
  make(name(2), 600 * MiB, 3); // the oldest of two that add up past 1 GiB
  make(name(3), 600 * MiB, 1);
  writeFileSync(join(dir, "keep-me.txt"), "not an artifact\n");
  const r = await run(["call", "bash", '{"command":"echo hello"}', ...GRANT], { cwd: ws.path });
  const { stdout, stderr } = json(r).payload.artifacts as { stdout: string; stderr: string | null };
  expect(readFileSync(join(ws.path, stdout), "utf8")).toBe("hello\n");
  const own = [stdout, stderr].filter((p) => p !== null).map((p) => p!.split("/").pop()!);
  expect(readdirSync(dir).sort()).toEqual([name(3), ...own, "keep-me.txt"].sort());
});
