// Holes in the trust rule, each as the attacker would try it against the
// compiled binary: a symlinked toolgate.json borrowing another project's trust, a user state folder
// inside the workspace, a journal made writable in the sandbox, $TOOLGATE_CONFIG judged against
// the wrong folder. HOME and XDG_STATE_HOME always point at temporary folders.
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { chmodSync, cpSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { json, onTty, run, tempDir } from "../helpers.ts";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

function put(root: string, rel: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
  chmodSync(join(root, rel), mode);
}

/** An authored tool that waives approval and leaves a marker when it runs. */
function markerTool(root: string, marker: string): void {
  put(
    root,
    "tools/x/tool.json",
    JSON.stringify({ name: "x", description: "d", input_schema: { type: "object" }, approval: "never" }),
  );
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

describe("a user state folder inside the workspace (HOME is the checkout) pre-approves nothing", () => {
  test("a trust record shipped at .local/state/toolgate/trust/ is ignored, and said so", async () => {
    await using ws = tempDir();
    const marker = join(ws.path, "MARKER");
    const config = join(ws.path, "toolgate.json");
    const text = JSON.stringify({ permissions: { allow: { run: true } } });
    put(ws.path, "toolgate.json", text);
    markerTool(ws.path, marker);
    // The record `toolgate trust` would write, committed by the repository under HOME = the checkout.
    const record = { path: config, real: config, workspace: ws.path, digest: sha256(text), trusted_ms: 0 };
    put(ws.path, `.local/state/toolgate/trust/${sha256(config)}.json`, JSON.stringify(record));
    const r = await run(["call", "x", "{}", "--no-prompt"], { cwd: ws.path, env: { HOME: ws.path } });
    expect([r.code, existsSync(marker)]).toEqual([5, false]);
    expect(r.stderr).toContain("ignoring trust records");
    expect(r.stderr).toContain("XDG_STATE_HOME");
  });

  test("a remembered approval in the workspace's own .local/state is ignored, and said so", async () => {
    await using ws = tempDir();
    await using home = tempDir("toolgate-home-");
    writeFileSync(join(ws.path, "a.txt"), "a\n");
    const call = ["call", "file_read", '{"path":"a.txt"}', "--allow-read"];
    // A real "always" answer, its database then placed where HOME = the checkout would look.
    expect((await onTty(ws.path, call, "A\n", { HOME: home.path })).out).toContain('"status":"success"');
    mkdirSync(join(ws.path, ".local", "state"), { recursive: true });
    cpSync(join(home.path, ".local", "state", "toolgate"), join(ws.path, ".local", "state", "toolgate"), {
      recursive: true,
    });
    expect((await run(call, { cwd: ws.path, env: { HOME: home.path } })).code).toBe(0);
    const r = await run(call, { cwd: ws.path, env: { HOME: ws.path } });
    expect([r.code, json(r).error_code]).toEqual([4, "approval.required"]);
    expect(r.stderr).toContain("ignoring remembered approvals");
  });

  test("`toolgate trust` there refuses, naming XDG_STATE_HOME; elsewhere it records", async () => {
    await using ws = tempDir();
    await using state = tempDir("toolgate-state-");
    put(ws.path, "toolgate.json", JSON.stringify({ permissions: { allow: { run: true } } }));
    const r = await run(["trust"], { cwd: ws.path, env: { HOME: ws.path } });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain("lies inside the workspace");
    expect(r.stderr).toContain("XDG_STATE_HOME");
    expect(existsSync(join(ws.path, ".local", "state", "toolgate", "trust"))).toBe(false);
    expect((await run(["trust"], { cwd: ws.path, env: { HOME: ws.path, XDG_STATE_HOME: state.path } })).code).toBe(0);
  });
});

describe("no config makes the journal writable inside the sandbox, trusted or not", () => {
  test.each([
    ["scratch is the state folder", { sandbox: "product", scratch: ".toolgate" }, "scratch: "],
    ["scratch holds the state folder", { sandbox: "product", scratch: "." }, "scratch: "],
    ["state is the workspace root", { sandbox: "product", state: "." }, "state: "],
    ["state lies above the workspace", { sandbox: "product", state: ".." }, "state: "],
  ])("%s: refused at boot (exit 5) naming the key; nothing ran", async (_what, config, key) => {
    await using ws = tempDir();
    await using home = tempDir("toolgate-home-");
    put(ws.path, "toolgate.json", JSON.stringify(config));
    writeFileSync(join(ws.path, "a.txt"), "a\n");
    const call = ["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"];
    const r = await run(call, { cwd: ws.path, env: { HOME: home.path } });
    expect([r.code, r.stdout]).toEqual([5, ""]);
    expect(r.stderr).toContain(key);
    // The user's own --config is refused the same way.
    const own = await run([...call, "--config", join(ws.path, "toolgate.json")], {
      cwd: ws.path,
      env: { HOME: home.path },
    });
    expect([own.code, own.stderr.includes(key)]).toEqual([5, true]);
  });

  test("scratch inside the state folder (the default) and state inside the workspace still boot", async () => {
    await using ws = tempDir();
    await using home = tempDir("toolgate-home-");
    put(ws.path, "toolgate.json", JSON.stringify({ state: ".tg", scratch: ".tg/scratch" }));
    writeFileSync(join(ws.path, "a.txt"), "a\n");
    const r = await run(["call", "file_read", '{"path":"a.txt"}', "--allow-read", "--approve", "file_read"], {
      cwd: ws.path,
      env: { HOME: home.path },
    });
    expect(r.code).toBe(0);
  });
});

describe("$TOOLGATE_CONFIG is judged against the workspace it would use", () => {
  test('a file with "workspace": "/" lies inside its own workspace: untrusted, its grants and workspace refused', async () => {
    await using cfg = tempDir("toolgate-cfg-");
    await using cwd = tempDir();
    await using out = tempDir("toolgate-outside-");
    await using home = tempDir("toolgate-home-");
    const config = join(cfg.path, "toolgate.json");
    put(
      cfg.path,
      "toolgate.json",
      JSON.stringify({ workspace: "/", permissions: { allow: { run: true, write: true } } }),
    );
    const marker = join(out.path, "MARKER");
    const write = [
      "call",
      "file_write",
      JSON.stringify({ path: marker.slice(1), content: "x" }),
      "--approve",
      "file_write",
    ];
    const r = await run(write, { cwd: cwd.path, env: { HOME: home.path, TOOLGATE_CONFIG: config } });
    expect([r.code, existsSync(marker)]).toEqual([5, false]);
    for (const key of ["permissions.allow.write", "workspace"]) expect(r.stderr).toContain(` ${key}:`);
  });

  test("a file outside the workspace and outside the current repository stays the user's own", async () => {
    await using cfg = tempDir("toolgate-cfg-");
    await using ws = tempDir();
    await using home = tempDir("toolgate-home-");
    put(cfg.path, "toolgate.json", JSON.stringify({ workspace: ws.path, permissions: { allow: { read: true } } }));
    writeFileSync(join(ws.path, "a.txt"), "a\n");
    const r = await run(["call", "file_read", '{"path":"a.txt"}', "--approve", "file_read"], {
      cwd: ws.path,
      env: { HOME: home.path, TOOLGATE_CONFIG: join(cfg.path, "toolgate.json") },
    });
    expect(r.code).toBe(0);
  });
});
