// End to end: `tools --lock` pins the catalog; a changed or missing pin refuses the tool (exit 5).
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, run, tempDir } from "../helpers.ts";

test("tools --lock writes a stable lock; tampered and missing pins are refused with exit 5", async () => {
  await using dir = tempDir();
  writeFileSync(join(dir.path, "a.txt"), "x\n");
  const lockPath = join(dir.path, "toolgate.lock");
  expect((await run(["tools", "--lock"], { cwd: dir.path })).code).toBe(0);
  const text = readFileSync(lockPath, "utf8");
  expect((await run(["tools", "--lock"], { cwd: dir.path })).code).toBe(0);
  expect(readFileSync(lockPath, "utf8")).toBe(text);
  const call = ["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "all"];
  expect((await run(call, { cwd: dir.path })).code).toBe(0);

  const lock = JSON.parse(text);
  lock.tools.file_read.effect = "reversible";
  lock.tools.file_read.digest = "0".repeat(64);
  writeFileSync(lockPath, JSON.stringify(lock));
  const changed = await run(call, { cwd: dir.path });
  expect(changed.code).toBe(5);
  expect(json(changed)).toMatchObject({ status: "failed", error_code: "descriptor_changed" });
  expect(json(changed).message).toContain("effect reversible → read");
  const listed = (await run(["tools", "--json"], { cwd: dir.path })).stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(listed.find((d) => d.name === "file_read").refused).toBe("descriptor_changed");

  delete lock.tools.file_read;
  writeFileSync(lockPath, JSON.stringify(lock));
  const unpinned = await run(call, { cwd: dir.path });
  expect([unpinned.code, json(unpinned).error_code]).toEqual([5, "descriptor_unpinned"]);

  writeFileSync(lockPath, "garbage");
  const bad = await run(call, { cwd: dir.path });
  expect(bad.code).toBe(5);
  expect(bad.stderr).toContain("renew it with `toolgate tools --lock`");

  // --lock renews even a broken lock
  expect((await run(["tools", "--lock"], { cwd: dir.path })).code).toBe(0);
  expect(readFileSync(lockPath, "utf8")).toBe(text);
  expect((await run(call, { cwd: dir.path })).code).toBe(0);
});
