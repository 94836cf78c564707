// The one channel for human lines: escaped, on stderr only, at the run's --quiet/--verbose level
// (a forwarded call's level is its own, as its output is).
import { describe, expect, test } from "bun:test";
import { detail, levelFrom, note, plain, problem, raw, tell, warning } from "../../src/result/human.ts";
import { withSinks } from "../../src/result/io.ts";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { run, tempDir } from "../helpers.ts";

/** What the lines said through `f` wrote to stdout and stderr, with the flags given. */
async function said(flags: Record<string, unknown>, f: () => unknown): Promise<{ out: string; err: string }> {
  let out = "";
  let err = "";
  await withSinks({ out: (t) => void (out += t), err: (t) => void (err += t) }, async () => {
    levelFrom(flags);
    await f();
  });
  return { out, err };
}

const everything = async () => {
  note("a note");
  detail("a detail");
  plain("https://a.example/\u001b[2J");
  warning("a warning");
  problem("refused\nsecond line", "do this");
  raw("\r\u001b[2K");
  await tell("success", "done");
  await tell("warn", "careful");
};

describe("human lines", () => {
  test("by default: notes, warnings, problems and successes; no details; nothing on stdout", async () => {
    const { out, err } = await said({}, everything);
    expect(out).toBe("");
    expect(err).toContain("toolgate: a note\n");
    expect(err).not.toContain("a detail");
    expect(err).toContain("https://a.example/\\u{1b}[2J\n");
    expect(err).toContain("toolgate: a warning\n");
    expect(err).toContain("toolgate: refused\n  second line\n  hint: do this\n");
    expect(err).toContain("\r\u001b[2K");
    expect(err).toContain("done");
    expect(err).toContain("careful");
  });

  test("--quiet: only warnings, problems and bytes already made", async () => {
    const { err } = await said({ quiet: true }, everything);
    for (const gone of ["a note", "a detail", "https://", "done"])
      expect({ gone, shown: err.includes(gone) }).toEqual({ gone, shown: false });
    for (const kept of ["toolgate: a warning", "toolgate: refused", "\r\u001b[2K", "careful"])
      expect({ kept, shown: err.includes(kept) }).toEqual({ kept, shown: true });
  });

  test("--verbose: the details too", async () => {
    const { err } = await said({ verbose: true }, everything);
    expect(err).toContain("toolgate: a detail\n");
    expect(err).toContain("toolgate: a note\n");
  });

  test("two calls served at once keep their own levels", async () => {
    const [quiet, loud] = await Promise.all([
      said({ quiet: true }, async () => {
        await Bun.sleep(1);
        note("from the quiet one");
      }),
      said({}, async () => {
        await Bun.sleep(1);
        note("from the other");
      }),
    ]);
    expect([quiet.err, loud.err]).toEqual(["", "toolgate: from the other\n"]);
  });
});

describe("end to end: a command's human lines at its level", () => {
  test("trust --revoke says what it did; with --quiet nothing; a usage error is said at every level", async () => {
    await using ws = tempDir();
    await using state = tempDir();
    writeFileSync(join(ws.path, "toolgate.json"), "{}");
    const env = { XDG_STATE_HOME: state.path };
    const said = await run(["trust", "--revoke", "toolgate.json"], { cwd: ws.path, env });
    expect([said.code, said.stderr]).toEqual([0, `toolgate: ${join(ws.path, "toolgate.json")} was not trusted\n`]);
    const quiet = await run(["trust", "--revoke", "toolgate.json", "-q"], { cwd: ws.path, env });
    expect([quiet.code, quiet.stderr]).toEqual([0, ""]);
    const refused = await run(["trust", "--revoke", "--list", "--quiet"], { cwd: ws.path, env });
    expect([refused.code, refused.stderr]).toEqual([2, "toolgate: --revoke and --list cannot be combined\n"]);
  });
});
