// Attack: a toolgate.json nested deeper than any reader's stack (a cloned repository's, or one named
// with --config). Every reader of the text recurses per level (JSON.parse, jsonc-parser, the checks):
// the file is refused as bad input (exit 5, naming it), never an internal error, and nothing runs.
import { describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { run, tempDir } from "../helpers.ts";

const DEPTH = 200_000;
const nested = (comment: boolean) =>
  `${comment ? "// a comment makes it JSONC\n" : ""}{"x": ${"[".repeat(DEPTH)}${"]".repeat(DEPTH)}}`;

describe("a config nested too deeply to read", () => {
  test.each([
    ["plain JSON", false],
    ["JSONC", true],
  ])(
    "%s, in the workspace and as --config: exit 5 naming the file, no internal error, nothing journaled",
    async (_kind, comment) => {
      await using dir = tempDir();
      const config = join(dir.path, "toolgate.json");
      writeFileSync(config, nested(comment));
      writeFileSync(join(dir.path, "README.md"), "x\n");
      for (const argv of [
        ["call", "file_read", '{"path":"README.md"}', "--allow-read", "--approve", "all"],
        ["tools", "--config", config],
      ]) {
        const r = await run(argv, { cwd: dir.path });
        expect(r.code).toBe(5);
        expect(r.stderr).toContain(`${config}: its values are nested too deeply to be read`);
        expect(r.stderr).not.toContain("internal error");
        expect(r.stdout).toBe("");
      }
      expect(existsSync(join(dir.path, ".toolgate"))).toBe(false);
    },
  );
});
