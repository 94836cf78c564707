import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
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
});

describe("argsForApproval", () => {
  test("pretty-printed and whole; secret keys and bound secrets redacted; invisible characters escaped", () => {
    const long = "z".repeat(10_000);
    const text = argsForApproval({ command: long, password: "pw", note: "has hunter2-secret \u202e" }, ["hunter2-secret"]);
    expect(text).toContain(long);
    expect(text).toContain('\n  "command"');
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain('"pw"');
    expect(text).toContain("\\u202e");
  });
});
