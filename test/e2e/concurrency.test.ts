// 200 `toolgate call file_read` processes started together all succeed and leave exactly 200 rows.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";

test("200 concurrent calls: all succeed, exactly 200 journal rows", async () => {
  await using dir = tempDir();
  writeFileSync(join(dir.path, "a.txt"), "x\n");
  const results = await Promise.all(
    Array.from({ length: 200 }, () =>
      run(["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"], { cwd: dir.path }),
    ),
  );
  const failures = results.filter((r) => r.code !== 0);
  expect(failures.map((f) => f.stderr)).toEqual([]);
  const log = await run(["log", "--last", "1000", "--json"], { cwd: dir.path });
  const rows = log.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(rows.length).toBe(200);
  expect(new Set(rows.map((r) => r.status))).toEqual(new Set(["success"]));
  expect(results.every((r) => json(r).status === "success")).toBe(true);
}, 120_000);
