// CI in any form but empty, "false" or "0" means nobody is at the terminal: no prompt, the
// refusal names the flag. Driven through a real pseudo-terminal.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { onTty, tempDir } from "../helpers.ts";

describe("CI turns prompting off", () => {
  test.each(["1", "true", "TRUE", "yes", "github"])(
    "CI=%s: no prompt on a terminal, permission.denied (exit 4)",
    async (ci) => {
      await using dir = tempDir();
      writeFileSync(join(dir.path, "a.txt"), "hello\n");
      const r = await onTty(dir.path, ["call", "file_read", '{"path":"a.txt"}', "--approve", "file_read"], "y\ny\n", {
        CI: ci,
      });
      expect(r.out).not.toContain("Allow?");
      expect(r.out).toContain('"error_code":"permission.denied"');
      expect(r.code).toBe(4);
    },
  );

  test.each(["", "false", "0", "False"])("CI=%p still prompts on a terminal", async (ci) => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "a.txt"), "hello\n");
    const r = await onTty(dir.path, ["call", "file_read", '{"path":"a.txt"}', "--approve", "file_read"], "y\n", {
      CI: ci,
    });
    expect(r.out).toContain("Allow?");
    expect(r.out).toContain('"status":"success"');
    expect(r.code).toBe(0);
  });
});
