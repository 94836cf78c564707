// Sections the schema accepts but whose feature does not exist yet
// used to boot as if it did (`rails.require: true` booted and exited 0). Each is refused at boot
// (exit 5) naming the key and saying the feature does not exist yet; harmless values still boot.
// No section is inert any more; this keeps the harmless values booting.
// The rails, Most and delegation exist now: test/e2e/rails.test.ts, test/e2e/most.test.ts and test/e2e/delegate.test.ts test their keys.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

async function withConfig(config: unknown, args: string[]) {
  await using ws = tempDir();
  const file = join(ws.path, "given.json");
  writeFileSync(file, JSON.stringify(config, null, 2));
  writeFileSync(join(ws.path, "a.txt"), "hello\n");
  return await run(["--config", file, ...args], { cwd: ws.path });
}

describe("config keys whose feature does not exist yet", () => {
  test("values that claim nothing still boot: rails.require false, empty sections", async () => {
    const r = await withConfig({ rails: { require: false }, most: {}, delegation: {}, profiles: {}, boundary: {} }, [
      "call",
      "file_read",
      '{"path":"a.txt"}',
      "--allow-read",
      "--approve",
      "all",
    ]);
    expect([r.code, JSON.parse(r.stdout).status]).toEqual([0, "success"]);
  });
});
