import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { ensureStateFolder } from "../../src/fs/state-folder.ts";
import { argumentsBlock, SHOW_CHARS } from "../../src/permission/prompt-block.ts";
import { argsForApproval } from "../../src/boundary/redact.ts";
import { tempDir } from "../helpers.ts";

describe("argumentsBlock", () => {
  test("up to the bound: shown whole, no file", async () => {
    await using dir = tempDir();
    const args = "a".repeat(SHOW_CHARS);
    const block = argumentsBlock(args, dir.path);
    expect(block).toContain(args);
    expect(block).not.toContain("PARTIAL");
    expect(existsSync(join(dir.path, "prompts"))).toBe(false);
  });

  test("one past the bound: partial, the file written", async () => {
    await using dir = tempDir();
    const block = argumentsBlock("a".repeat(SHOW_CHARS + 1), dir.path);
    expect(block).toContain("PARTIAL");
    expect(readdirSync(join(dir.path, "prompts"))).toHaveLength(1);
  });

  test("the same arguments twice: two new 0600 files under random names, none predictable from the arguments", async () => {
    await using dir = tempDir();
    const args = "b".repeat(SHOW_CHARS + 1);
    const files = [argumentsBlock(args, dir.path), argumentsBlock(args, dir.path)].map(
      (b) => /The whole arguments: (\S+)/.exec(b)![1]!,
    );
    expect(files[0]).not.toBe(files[1]);
    const sha = createHash("sha256").update(args).digest("hex");
    for (const f of files) {
      expect(f).toMatch(/\/prompts\/args-[0-9a-f]{32}\.json$/);
      expect(f).not.toContain(sha.slice(0, 16));
      expect([statSync(f).mode & 0o777, readFileSync(f, "utf8")]).toEqual([0o600, args]);
    }
  });

  test("a prompts folder that is a link (in a state folder, or planted after it was checked) is never written through", async () => {
    await using dir = tempDir();
    await using elsewhere = tempDir();
    symlinkSync(elsewhere.path, join(dir.path, "prompts"));
    expect(() => argumentsBlock("c".repeat(SHOW_CHARS + 1), dir.path)).toThrow(/holds a symbolic link/);
    await using later = tempDir();
    ensureStateFolder(later.path);
    symlinkSync(elsewhere.path, join(later.path, "prompts"));
    expect(() => argumentsBlock("c".repeat(SHOW_CHARS + 1), later.path)).toThrow(/prompts is a symbolic link/);
    expect(readdirSync(elsewhere.path)).toEqual([]);
  });
});

describe("argsForApproval", () => {
  test("pretty-printed and whole; secret keys and bound secrets redacted; invisible characters escaped", () => {
    const long = "z".repeat(10_000);
    const text = argsForApproval({ command: long, password: "pw", note: "has hunter2-secret \u202e" }, [
      "hunter2-secret",
    ]);
    expect(text).toContain(long);
    expect(text).toContain('\n  "command"');
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain('"pw"');
    expect(text).toContain("\\u202e");
  });
});
