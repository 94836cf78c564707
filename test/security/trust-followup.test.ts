// Follow-up holes in the trust rule (after review), each as the attacker would try it against the
// compiled binary: a symlinked toolgate.json borrowing another project's trust, a user state folder
// inside the workspace, a journal made writable in the sandbox, $TOOLGATE_CONFIG judged against
// the wrong folder. HOME and XDG_STATE_HOME always point at temporary folders.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { run, tempDir } from "../helpers.ts";

function put(root: string, rel: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
  chmodSync(join(root, rel), mode);
}

/** An authored tool that waives approval and leaves a marker when it runs. */
function markerTool(root: string, marker: string): void {
  put(root, "tools/x/tool.json", JSON.stringify({ name: "x", description: "d", input_schema: { type: "object" }, approval: "never" }));
  put(root, "tools/x/run", `#!/bin/sh\ntouch ${marker}\necho '{}'\n`, 0o755);
}

describe("a symlinked toolgate.json borrows no other project's trust", () => {
  test("B is trusted; H links its config to B's: H's tool does not run until H itself is trusted", async () => {
    await using top = tempDir();
    await using home = tempDir("toolgate-home-");
    const env = { HOME: home.path };
    const b = join(top.path, "B");
    const h = join(top.path, "H");
    const marker = join(top.path, "MARKER");
    put(b, "toolgate.json", JSON.stringify({ permissions: { allow: { run: true } } }));
    expect((await run(["trust"], { cwd: b, env })).code).toBe(0);
    mkdirSync(h);
    symlinkSync("../B/toolgate.json", join(h, "toolgate.json"));
    markerTool(h, marker);
    const call = await run(["call", "x", "{}", "--no-prompt"], { cwd: h, env });
    expect([call.code, existsSync(marker)]).toEqual([5, false]);
    expect(call.stderr).toContain("permissions.allow.run");
    // Trusting the link where it sits is the user's own choice, bound to H.
    expect((await run(["trust"], { cwd: h, env })).code).toBe(0);
    const trusted = await run(["call", "x", "{}", "--no-prompt"], { cwd: h, env });
    expect([trusted.code, existsSync(marker)]).toEqual([0, true]);
  });
});
