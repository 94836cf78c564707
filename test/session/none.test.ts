import { describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, normalize } from "node:path";
import { plainSessionsFolder, surelyNoSession } from "../../src/session/none.ts";
import { sessionsFolder } from "../../src/session/where.ts";
import { tempDir } from "../helpers.ts";

// The entry's quick check may skip the session client only where the client would find no folder.
describe("surelyNoSession (the entry's check before the session client loads)", () => {
  test("names the folder sessionsFolder names, for every mix of the three variables, or declines (dot segments)", () => {
    const values = [
      undefined,
      "",
      "rel",
      "rel/x",
      "/",
      "/a",
      "/a/",
      "/a//b",
      "/a/./b",
      "/a/../b",
      "/a/..",
      "/.",
      "/a/.b",
      "/a/b..",
      "/a/...",
      "/x y/z",
    ];
    let plain = 0;
    let declined = 0;
    for (const XDG_RUNTIME_DIR of values) {
      for (const XDG_STATE_HOME of values) {
        for (const HOME of values) {
          const env = { XDG_RUNTIME_DIR, XDG_STATE_HOME, HOME };
          const quick = plainSessionsFolder(env);
          const full = sessionsFolder(env);
          if (quick === undefined) {
            declined++;
            expect(full).not.toBeNull();
            continue;
          }
          if (quick === null) expect(full).toBeNull();
          else {
            plain++;
            // Unjoined, but the same folder: only doubled or trailing slashes differ.
            expect(normalize(quick)).toBe(full!);
          }
        }
      }
    }
    expect(plain).toBeGreaterThan(1000);
    expect(declined).toBeGreaterThan(100);
  });

  test("says none only when the folder is missing; a folder of any kind, or one it cannot look at, goes to the client", async () => {
    await using dir = tempDir();
    const env = { XDG_RUNTIME_DIR: join(dir.path, "run"), HOME: "/nonexistent" };
    expect(surelyNoSession(env)).toBe(true);
    expect(surelyNoSession({ HOME: "relative" })).toBe(true); // no user folder: the client finds none either
    mkdirSync(join(dir.path, "run", "toolgate", "sessions"), { recursive: true });
    expect(surelyNoSession(env)).toBe(false);
    // A file or a link where the folder should be: the client refuses it, with its own words.
    const file = { XDG_RUNTIME_DIR: join(dir.path, "file") };
    mkdirSync(join(dir.path, "file", "toolgate"), { recursive: true });
    writeFileSync(join(dir.path, "file", "toolgate", "sessions"), "");
    expect(surelyNoSession(file)).toBe(false);
    // Not a folder on the way (ENOTDIR): not decided here.
    writeFileSync(join(dir.path, "plain"), "");
    expect(surelyNoSession({ XDG_RUNTIME_DIR: join(dir.path, "plain") })).toBe(false);
  });

  test("a `..` after a link: the system resolves it elsewhere than the client's join, so the client decides", async () => {
    await using dir = tempDir();
    // The client's folder (lexical): <dir>/toolgate/sessions, which exists.
    mkdirSync(join(dir.path, "toolgate", "sessions"), { recursive: true });
    // The system's (through the link): <dir>/a/toolgate/sessions, which does not.
    mkdirSync(join(dir.path, "a", "b"), { recursive: true });
    symlinkSync(join(dir.path, "a", "b"), join(dir.path, "link"));
    const env = { XDG_RUNTIME_DIR: `${dir.path}/link/..` };
    expect(sessionsFolder(env)).toBe(join(dir.path, "toolgate", "sessions"));
    expect(surelyNoSession(env)).toBe(false);
  });
});
