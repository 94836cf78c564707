// refuseProtected: what file_edit and file_write never write, judged on the workspace-relative
// form of the checked real path: control files refused whether or not they exist yet.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { refuseProtected } from "../../../src/tools/files/protected.ts";
import { tempDir } from "../../helpers.ts";

const code = (r: ReturnType<typeof refuseProtected>) => (r === null ? null : r.ok ? "ok" : r.refusal.code);

describe("refuseProtected", () => {
  test.each([
    ["the config at the root, not there yet", "toolgate.json", "path.protected"],
    ["the lock, not there yet", "toolgate.lock", "path.protected"],
    ["the authored-tools folder itself", "tools", "path.protected"],
    ["a manifest in an authored-tools folder not there yet", "tools/x/tool.json", "path.protected"],
    ["a .git folder", ".git/hooks/pre-commit", "path.protected"],
    [".git in another case (git reads it as .git)", ".GIT/config", "path.protected"],
    ["a nested .git", "vendor/lib/.Git/hooks/post-checkout", "path.protected"],
    ["the state folder", ".toolgate/toolgate.db", "path.protected"],
    // toolgate run from docs/ would find it first: the config and lock names are control files in every folder.
    ["a config name below the root (found when toolgate runs from there)", "docs/toolgate.json", "path.protected"],
    ["a lock name below the root", "docs/toolgate.lock", "path.protected"],
    ["a name that only starts like a control folder", "tools-old/x.ts", null],
    ["an ordinary file", "src/a.ts", null],
  ])("%s: %s", async (_what, rel, expected) => {
    await using ws = tempDir();
    const scope = { stateDir: join(ws.path, ".toolgate"), controlFiles: [join(ws.path, "tools")] };
    expect(code(refuseProtected(ws.path, scope, rel))).toBe(expected);
  });

  test("a config found elsewhere in the workspace (--config, $TOOLGATE_CONFIG) is protected where it is", async () => {
    await using ws = tempDir();
    mkdirSync(join(ws.path, "conf"));
    writeFileSync(join(ws.path, "conf", "tg.json"), "{}");
    expect(code(refuseProtected(ws.path, { controlFiles: [join(ws.path, "conf", "tg.json")] }, "conf/tg.json"))).toBe(
      "path.protected",
    );
  });

  test("where names are case-sensitive another case is another file; where they fold it is refused", async () => {
    await using ws = tempDir();
    // This folder is case-sensitive (Linux): "Tools" is not "tools". The config and lock names are
    // refused in any case and any folder, which costs nothing where names are case-sensitive.
    writeFileSync(join(ws.path, "Makefile"), "");
    expect(code(refuseProtected(ws.path, { controlFiles: [join(ws.path, "tools")] }, "TOOLGATE.JSON"))).toBe(
      "path.protected",
    );
    expect(code(refuseProtected(ws.path, { controlFiles: [join(ws.path, "tools")] }, "Tools/x/tool.json"))).toBe(null);
    // With nothing in the folder to tell, folding is assumed: the case variant is refused.
    await using empty = tempDir();
    expect(code(refuseProtected(empty.path, {}, "TOOLGATE.JSON"))).toBe("path.protected");
  });
});
