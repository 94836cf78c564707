// End to end against dist/toolgate: a name toolgate does not know is refused as before (same code,
// same exit code) and the refusal names the nearest valid name when one is close; a far-off name
// gets no suggestion. Never a correction: nothing runs under the suggested name.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { BIN, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build` (the README's test command does)");
});

/** The first line toolgate wrote on stderr, without its prefix. */
const firstLine = (stderr: string) => stderr.split("\n")[0]!.replace(/^toolgate: /, "");

describe("commands and flags: usage errors (exit 2), the nearest name when one is close", () => {
  test.each([
    ["a command", ["cal"], 'unknown command "cal"; did you mean "call"?', ["frobnicate"], 'unknown command "frobnicate"'],
    ["a global flag", ["call", "file_read", "{}", "--aprove", "file_read"], "unknown flag --aprove; did you mean --approve?", ["call", "file_read", "{}", "--frobnicate"], "unknown flag --frobnicate"],
    ["a permission flag", ["call", "file_read", "{}", "--allow-reed"], "unknown flag --allow-reed; did you mean --allow-read?", ["call", "file_read", "{}", "-x"], "unknown flag -x"],
    ["a permission flag with a value", ["call", "file_read", "{}", "--allow-reed=src"], "unknown flag --allow-reed; did you mean --allow-read?", ["call", "file_read", "{}", "--allow-everything=src"], "unknown flag --allow-everything"],
    ["a command's own flag", ["tools", "--lokc"], "unknown flag --lokc; did you mean --lock?", ["tools", "--frobnicate"], "unknown flag --frobnicate"],
    ["a flag with no command", ["--verbsoe"], "unknown flag --verbsoe; did you mean --verbose?", ["--frobnicate"], "unknown flag --frobnicate"],
    ["a long flag with one dash", ["-jsn"], "unknown flag -jsn; did you mean --json?", ["-frobnicate"], "unknown flag -frobnicate"],
    ["a tasks action", ["tasks", "lsit"], 'unknown tasks action "lsit"; did you mean "list"?', ["tasks", "frobnicate"], 'unknown tasks action "frobnicate"'],
    ["a config action", ["config", "shema"], 'unknown config action "shema"; did you mean "schema"?', ["config", "frobnicate"], 'unknown config action "frobnicate"'],
    ["a session action", ["session", "strat"], 'unknown session action "strat"; did you mean "start"?', ["session", "frobnicate"], 'unknown session action "frobnicate"'],
  ])("%s", async (_what, near, nearLine, far, farLine) => {
    await using dir = tempDir();
    const [r, f] = [await run(near, { cwd: dir.path }), await run(far, { cwd: dir.path })];
    expect([r.code, r.stdout, firstLine(r.stderr)]).toEqual([2, "", nearLine]);
    expect([f.code, f.stdout, firstLine(f.stderr)]).toEqual([2, "", farLine]);
  });
});
