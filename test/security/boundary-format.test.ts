// Keys, PEM markers and paths split by
// invisible characters (Cf, other default-ignorables, combining marks) or by a newline, no-break
// space or NEL, spelled with look-alikes, or standing after `=`, `:` or `,` must not slip through.
// End to end: an authored tool prints the value; dist/toolgate must replace the result whole.
import { beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const EMIT = join(import.meta.dir, "..", "fixtures", "authored", "emit");
const GRANTS = ["--allow-run", "--approve", "all"];

async function emit(ws: string, value: unknown) {
  return run(["call", "emit", JSON.stringify({ raw: JSON.stringify(value) }), ...GRANTS], { cwd: ws });
}

const REJECTED: [string, unknown][] = [
  ["to\\u200bken as a key", { "to\u200bken": "abc" }],
  ["pass\\u00adword as a key", { "pass\u00adword": "hunter22" }],
  ["\\u200b/etc/shadow", { line: "\u200b/etc/shadow" }],
  ["BEGIN PRI\\u200bVATE KEY", { k: "-----BEGIN PRI\u200bVATE KEY-----\nMIIE" }],
  ["a newline between the marker's words", { k: "-----BEGIN RSA PRIVATE\nKEY-----" }],
  ["a no-break space between the marker's words", { k: "-----BEGIN\u00a0PRIVATE KEY-----" }],
  ["dashes split by a zero-width space", { k: "--\u200b---BEGIN PRIVATE KEY-----" }],
  // invisible characters that are not Cf, look-alikes, NEL, paths after = : ,
  ["token\\u034f (combining grapheme joiner) as a key", { "token\u034f": "abc" }],
  ["token\\ufe0f (variation selector) as a key", { "token\ufe0f": "abc" }],
  ["token\\u3164 (Hangul filler) as a key", { "token\u3164": "abc" }],
  ["secre\\u0332t (a combining mark) as a key", { "secre\u0332t": "abc" }],
  ["a Cyrillic tоken as a key", { "t\u043eken": "abc" }],
  ["a Cyrillic РRIVATE in a PEM marker", { k: "-----BEGIN \u0420RIVATE KEY-----\nMIIE" }],
  [
    "U+2010 dashes in a PEM marker",
    { k: "\u2010\u2010\u2010\u2010\u2010BEGIN OPENSSH PRIVATE KEY\u2010\u2010\u2010\u2010\u2010" },
  ],
  ["NEL between a PEM marker's words", { k: "-----BEGIN\u0085PRIVATE KEY-----" }],
  ["NEL before a path", { line: "see\u0085/etc/shadow" }],
  ["--file=/root/…", { line: "--file=/root/.ssh/id_ed25519" }],
  ["cwd:/root/…", { line: "cwd:/root/project" }],
  ["a path after a comma", { line: "a.txt,/root/b.txt" }],
  ["JSON text behind a zero-width space", { s: '\u200b{"token":"abc"}' }],
];

describe("the output boundary reads through format characters", () => {
  test.each(REJECTED)("%s is rejected whole", async (_name, value) => {
    await using ws = tempDir();
    cpSync(EMIT, join(ws.path, "tools", "emit"), { recursive: true });
    const r = await emit(ws.path, value);
    expect([r.code, json(r)]).toEqual([1, { status: "failed", error_code: "sensitive_output_rejected" }]);
  });

  test("format characters alone are no reason to reject", async () => {
    await using ws = tempDir();
    cpSync(EMIT, join(ws.path, "tools", "emit"), { recursive: true });
    const value = {
      "token\u200b_count": 3,
      "t\u043ekens": 2,
      note: "a\u200b/b hyphen\u00adated caf\u00e9 /api/v1 </table>",
      k: "-----BEGIN PUBLIC\u200b KEY-----",
    };
    const r = await emit(ws.path, value);
    expect([r.code, json(r)]).toEqual([0, { status: "success", tool: "emit", payload: value }]);
  });
});
