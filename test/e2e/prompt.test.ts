// The prompts on a real pseudo-terminal (util-linux `script`): permission y/n and approval
// "A" (always), which is remembered for this digest.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, onTty, run, tempDir } from "../helpers.ts";

describe("prompts on the controlling terminal", () => {
  test("permission y, then approval A; the next run is approved by memory", async () => {
    await using dir = tempDir();
    // Remembered in the user's state folder, which must lie outside the workspace to be read.
    await using home = tempDir("toolgate-home-");
    const env = { HOME: home.path };
    writeFileSync(join(dir.path, "a.txt"), "hello\n");
    const first = await onTty(dir.path, ["call", "file_read", '{"path":"a.txt"}'], "y\nA\n", env);
    expect(first.out).toContain(`toolgate requests read access to "${join(dir.path, "a.txt")}"`);
    expect(first.out).toContain("Requested by tool `file_read`");
    expect(first.out).toContain("file_read needs approval");
    expect(first.out).toMatch(/Effect: read\. Digest: [0-9a-f]{12}\./);
    expect(first.out).toContain('"status":"success"');
    expect(first.code).toBe(0);
    // no prompt, no --approve: the remembered approval for this digest carries it
    const second = await run(["call", "file_read", '{"path":"a.txt"}', "--allow-read"], { cwd: dir.path, env });
    expect(second.code).toBe(0);
    expect(json(second).payload.content).toBe("1\thello");
  });

  test("permission n refuses with exit 4 and names the flag", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "a.txt"), "hello\n");
    const r = await onTty(dir.path, ["call", "file_read", '{"path":"a.txt"}', "--approve", "file_read"], "n\n");
    expect(r.code).toBe(4);
    expect(r.out).toContain("Denied read access");
    expect(r.out).toContain('"error_code":"permission.denied"');
  });

  test("--no-prompt never prompts, even on a terminal", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "a.txt"), "hello\n");
    const r = await onTty(dir.path, ["call", "file_read", '{"path":"a.txt"}', "--no-prompt"], "y\ny\n");
    expect(r.code).toBe(4);
    expect(r.out).not.toContain("Allow?");
  });

  test("control characters in prompted values are made visible", async () => {
    await using dir = tempDir();
    const evil = "a\u001b[2Jb.txt";
    writeFileSync(join(dir.path, evil), "x\n");
    const r = await onTty(
      dir.path,
      ["call", "file_read", JSON.stringify({ path: evil }), "--approve", "file_read"],
      "n\n",
    );
    expect(r.out).not.toContain("\u001b[2J");
    expect(r.out).toContain("a\\u{1b}[2Jb.txt");
  });
});
