// file_search's pool while the walk is still going: the helpers get whole chunks of the sorted
// list as it grows, search them meanwhile, and the answer is the one a single thread would give.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { LARGE_BYTES, LINE_CHARS } from "../../../src/tools/search/file-search.ts";
import { requiredNeedles } from "../../../src/tools/search/literal.ts";
import { CHUNK_FILES, Helper, Pool } from "../../../src/tools/search/pool.ts";
import { NEXT } from "../../../src/tools/search/scan.ts";
import { tempDir } from "../../helpers.ts";

const put = (root: string, rel: string, body: string): void => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), body);
};
const never = new AbortController().signal;
const setup = (base: string) => ({
  base,
  spec: {
    source: "hit",
    ignoreCase: false,
    needles: requiredNeedles("hit", false),
    largeBytes: LARGE_BYTES,
    lineChars: LINE_CHARS,
    perFile: 1000,
  },
  firstAfter: () => 0,
  enoughMatches: 1e9,
  enoughBytes: 1e12,
  signal: never,
});
const tree = (ws: string, n: number) => {
  const files = Array.from({ length: n }, (_, i) => `d${Math.floor(i / 100)}/f${String(i).padStart(4, "0")}.txt`);
  for (const [i, f] of files.entries()) put(ws, f, `miss\nhit ${i}\n`);
  return files;
};

describe("a pool fed while the walk goes on", () => {
  test("files offered in uneven pieces are searched once each, in order, as one thread would", async () => {
    await using ws = tempDir();
    const files = tree(ws.path, 23 * CHUNK_FILES + 17);
    const pool = new Pool(setup(ws.path), Helper.start(undefined, 1));
    for (let i = 0; i < files.length; i += 37) {
      pool.files.push(...files.slice(i, i + 37));
      pool.offer();
    }
    const prefix = await pool.finish();
    expect(prefix.map((c) => c.chunk)).toEqual(Array.from({ length: 24 }, (_, i) => i));
    expect(prefix.flatMap((c) => c.matches.map(([i, line, text]) => `${pool.files[i]}:${line}:${text}`))).toEqual(
      files.map((f, i) => `${f}:2:hit ${i}`),
    );
  });

  test("a helper gets whole chunks before the list is complete, and what it reports is the answer's", async () => {
    await using ws = tempDir();
    const files = tree(ws.path, 8 * CHUNK_FILES);
    // Claims chunk 0 as soon as it holds files the list is not done with, and says so.
    put(
      ws.path,
      "early-worker.js",
      [
        "let control;",
        "self.onmessage = (e) => {",
        "  const m = e.data;",
        "  if (m.control) control = m.control;",
        `  if (!m.end && m.files !== "" && m.files.split("\\0").length >= ${CHUNK_FILES} && Atomics.compareExchange(control, 0, 0, 1) === 0) {`,
        `    self.postMessage({ chunk: 0, status: Array(${CHUNK_FILES}).fill(0), bytes: Array(${CHUNK_FILES}).fill(0), matches: [[0, 1, "early", false]] });`,
        "    Atomics.notify(control, 0);",
        "  }",
        '  if (m.end) self.postMessage("done");',
        "};",
      ].join("\n"),
    );
    const pool = new Pool(setup(ws.path), Helper.start(join(ws.path, "early-worker.js"), 1));
    pool.files.push(...files.slice(0, 5 * CHUNK_FILES));
    pool.offer();
    const waited = Atomics.waitAsync(pool.control, NEXT, 0, 20_000);
    if (waited.async) await waited.value;
    expect(Atomics.load(pool.control, NEXT)).toBe(1); // claimed while 3 chunks were still to come
    pool.files.push(...files.slice(5 * CHUNK_FILES));
    const prefix = await pool.finish();
    const lines = prefix.flatMap((c) => c.matches.map(([i, line, text]) => `${pool.files[i]}:${line}:${text}`));
    expect(lines[0]).toBe(`${files[0]}:1:early`);
    expect(lines.slice(1)).toEqual(files.slice(CHUNK_FILES).map((f, i) => `${f}:2:hit ${i + CHUNK_FILES}`));
  });
});
