// End to end against dist/toolgate: file_search's answer, paging, refusals and exit codes, and
// agreement with ripgrep on a tree large enough to be spread over worker threads.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { BIN, json, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN))
    throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

const GRANT = ["--allow-read", "--approve", "file_search"];
const put = (root: string, rel: string, body: string | Uint8Array): void => {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), body);
};

describe("file_search through the binary", () => {
  test("matches, counts and one journal row; exit 0", async () => {
    await using dir = tempDir();
    put(dir.path, "src/a.ts", "const x = 1;\n// TODO: one\n");
    put(dir.path, "src/b.ts", "// todo: two\n");
    put(dir.path, "blob.bin", Buffer.from("\0TODO"));
    put(dir.path, ".gitignore", "gen/\n");
    put(dir.path, "gen/c.ts", "// TODO: ignored\n");
    const r = await run(["call", "file_search", '{"pattern":"todo:","ignoreCase":true}', ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(0);
    expect(json(r)).toEqual({
      status: "success",
      tool: "file_search",
      payload: {
        pattern: "todo:",
        path: ".",
        matches: [
          { path: "src/a.ts", line: 2, text: "// TODO: one" },
          { path: "src/b.ts", line: 1, text: "// todo: two" },
        ],
        count: 2,
        filesSearched: 3,
        skippedBinary: 1,
        skippedLarge: 0,
        skippedUnreadable: 0,
        skippedSecretFiles: 0,
        clippedLines: 0,
        truncated: false,
        scanCapped: false,
      },
    });
    const log = await run(["log", "--json"], { cwd: dir.path });
    const rows = log.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(rows.map((x) => [x.tool, x.status, x.effect])).toEqual([["file_search", "success", "read"]]);
  });

  test("--arg form and paging with nextCursor", async () => {
    await using dir = tempDir();
    put(dir.path, "a.txt", "hit\nhit\nhit\n");
    const first = await run(["call", "file_search", "--arg", "pattern=hit", "--arg", "limit=2", ...GRANT], {
      cwd: dir.path,
    });
    expect(first.code).toBe(0);
    expect(json(first).payload).toMatchObject({ count: 2, truncated: true, nextCursor: "a.txt:2" });
    const next = await run(
      ["call", "file_search", JSON.stringify({ pattern: "hit", limit: 2, cursor: "a.txt:2" }), ...GRANT],
      { cwd: dir.path },
    );
    expect(json(next).payload).toMatchObject({ matches: [{ path: "a.txt", line: 3, text: "hit" }], truncated: false });
  });

  test("exit 1: find.invalid names the engine's reason", async () => {
    await using dir = tempDir();
    const r = await run(["call", "file_search", '{"pattern":"(oops"}', ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(1);
    expect(json(r)).toMatchObject({ status: "failed", tool: "file_search", error_code: "find.invalid" });
    expect(json(r).message).toContain("(oops");
    expect(json(r).message).toMatch(/\)/);
  });

  test("exit 4: without a read grant the refusal names the flag; without approval, --approve", async () => {
    await using dir = tempDir();
    mkdirSync(join(dir.path, "src"));
    const denied = await run(["call", "file_search", '{"pattern":"x","path":"src"}', "--approve", "file_search"], {
      cwd: dir.path,
    });
    expect(denied.code).toBe(4);
    expect(json(denied).error_code).toBe("permission.denied");
    expect(json(denied).message).toContain("--allow-read=src");
    const unapproved = await run(["call", "file_search", '{"pattern":"x"}', "--allow-read"], { cwd: dir.path });
    expect(unapproved.code).toBe(4);
    expect(json(unapproved).error_code).toBe("approval.required");
  });

  test("a matched line holding a private key is rejected whole at the boundary", async () => {
    await using dir = tempDir();
    put(dir.path, "id", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n");
    const r = await run(["call", "file_search", '{"pattern":"BEGIN"}', ...GRANT], { cwd: dir.path });
    expect(r.code).toBe(1);
    expect(json(r)).toEqual({ status: "failed", error_code: "sensitive_output_rejected" });
  });

  test("on a git repository of 600 files (enough for worker threads), the same lines as rg --json", async () => {
    if (!existsSync("/usr/bin/rg")) throw new Error("ripgrep is missing: apt-get install -y ripgrep");
    await using dir = tempDir();
    put(dir.path, ".gitignore", "*.log\n.toolgate/\n");
    for (let i = 0; i < 600; i++) {
      const body = Array.from({ length: 30 }, (_, j) =>
        (i * 31 + j) % 97 === 0 ? `call(Needle_${j})` : `line ${j} of ${i}`,
      ).join("\n");
      put(dir.path, `p${i % 11}/f${i}.txt`, `${body}\n`);
    }
    put(dir.path, "x.log", "call(Needle_1)\n");
    put(dir.path, "b.bin", Buffer.from("\0call(Needle_1)\n"));
    expect(Bun.spawnSync(["git", "init", "-q"], { cwd: dir.path }).exitCode).toBe(0);
    const rg = Bun.spawnSync(["/usr/bin/rg", "--json", "--hidden", "-g", "!.git", "-i", "needle_\\d+"], {
      cwd: dir.path,
      stdout: "pipe",
    });
    const expected = rg.stdout
      .toString()
      .split("\n")
      .filter((l) => l.startsWith('{"type":"match"'))
      .map((l) => JSON.parse(l).data)
      .map((d) => `${d.path.text}:${d.line_number}`)
      .sort();
    expect(expected.length).toBeGreaterThan(100);
    const r = await run(
      ["call", "file_search", JSON.stringify({ pattern: "NEEDLE_\\d+", ignoreCase: true, limit: 1000 }), ...GRANT],
      { cwd: dir.path },
    );
    expect(r.code).toBe(0);
    const payload = json(r).payload;
    expect(payload.truncated).toBe(false);
    expect(payload.matches.map((m: any) => `${m.path}:${m.line}`).sort()).toEqual(expected);
  });
});
