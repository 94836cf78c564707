// Finding 12 (boundary): keys, PEM markers and path tokens split by invisible format characters
// (Unicode Cf) or by a newline / no-break space must not slip through the output boundary.
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
    const value = { "token\u200b_count": 3, note: "a\u200b/b hyphen\u00adated", k: "-----BEGIN PUBLIC\u200b KEY-----" };
    const r = await emit(ws.path, value);
    expect([r.code, json(r)]).toEqual([0, { status: "success", tool: "emit", payload: value }]);
  });
});
