// The approval prompt shows what will run: a bash command whose head is
// harmless shows its tail before the answer; arguments past the bound are written whole to a
// 0600 file whose path and sha256 the prompt shows, and the prompt says it is partial.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { onTty, tempDir } from "../helpers.ts";

const promptOf = (out: string) => out.slice(0, out.indexOf("Approve? [y/n/A]"));

describe("the approval prompt shows the whole arguments", () => {
  test("a harmless head, padding, and a hidden tail: the tail is on screen; n runs nothing", async () => {
    await using dir = tempDir();
    const command = `echo harmless; ${"x".repeat(300)} >/dev/null; touch pwned`;
    const r = await onTty(dir.path, ["call", "bash", JSON.stringify({ command }), "--allow-run=bash"], "n\n");
    expect(promptOf(r.out)).toContain("touch pwned");
    expect(promptOf(r.out)).not.toContain("PARTIAL");
    expect(r.out).toContain('"error_code":"approval.denied"');
    expect(r.code).toBe(4);
    expect(existsSync(join(dir.path, "pwned"))).toBe(false);
  });

  test("arguments past 4,000 characters: partial, said plainly; the whole is in a 0600 file with its sha256", async () => {
    await using dir = tempDir();
    const command = `echo harmless; : ${"y".repeat(5000)}; touch pwned-tail`;
    const r = await onTty(dir.path, ["call", "bash", JSON.stringify({ command }), "--allow-run=bash"], "n\n");
    const prompt = promptOf(r.out);
    expect(prompt).toContain("PARTIAL");
    expect(prompt).toContain("the preview is partial");
    const file = /The whole arguments: (\S+)/.exec(prompt)?.[1];
    const sha = /sha256 ([0-9a-f]{64})/.exec(prompt)?.[1];
    expect(file?.startsWith(`${join(dir.path, ".toolgate")}/`)).toBe(true);
    const text = readFileSync(file!, "utf8");
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    expect(createHash("sha256").update(text).digest("hex")).toBe(sha!);
    expect(JSON.parse(text)).toEqual({ command });
    expect(existsSync(join(dir.path, "pwned-tail"))).toBe(false);
    expect(r.code).toBe(4);
  });

  test("y runs exactly what was shown", async () => {
    await using dir = tempDir();
    const command = `echo harmless; ${"x".repeat(300)} >/dev/null; touch shown`;
    const r = await onTty(dir.path, ["call", "bash", JSON.stringify({ command }), "--allow-run=bash"], "y\n");
    expect(promptOf(r.out)).toContain("touch shown");
    expect(r.code).toBe(0);
    expect(existsSync(join(dir.path, "shown"))).toBe(true);
  });

  test("control characters in the arguments are visible, not acted on", async () => {
    await using dir = tempDir();
    const command = "echo \u001b]52;c;cm0gLXJm\u0007 \u009b2J \u202eevil";
    const r = await onTty(dir.path, ["call", "bash", JSON.stringify({ command }), "--allow-run=bash"], "n\n");
    const prompt = promptOf(r.out);
    expect(prompt).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(prompt).toContain("\\u001b]52;c;cm0gLXJm\\u0007");
    expect(prompt).toContain("\\u009b2J \\u202eevil");
  });
});
