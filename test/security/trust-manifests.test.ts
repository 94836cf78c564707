// Trust covers what the repository runs: after `toolgate trust`, an authored
// tool added later with "approval": "never" used to run with no approval through call and serve,
// since the trust record held the config's digest only. The record (and the TOOLGATE_TRUST pin)
// now holds each authored tool's manifest digest too: a tool added or changed afterwards needs
// approval until the user trusts again. Against the compiled binary; HOME outside the workspace.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { BIN, json, run, tempDir } from "../helpers.ts";
import { serve, textJson } from "../serve/client.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

/** tools/<name>: waives its approval; running it leaves <name>.ran in the workspace. */
function waiving(ws: string, name: string, extra: Record<string, unknown> = {}, body = ""): void {
  const dir = join(ws, "tools", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "tool.json"),
    JSON.stringify({ name, description: "d", input_schema: { type: "object" }, approval: "never", ...extra }),
  );
  writeFileSync(join(dir, "run"), `#!/bin/sh\n${body}touch ${name}.ran\necho '{"ran":"${name}"}'\n`);
  chmodSync(join(dir, "run"), 0o755);
}

/** A workspace with a config (that grants nothing) and a HOME beside it. */
function site(root: string): { ws: string; env: Record<string, string> } {
  const ws = join(root, "ws");
  mkdirSync(ws);
  mkdirSync(join(root, "home"));
  writeFileSync(join(ws, "toolgate.json"), "{}\n");
  // The state folder where serve's test client puts it too (test/serve/client.ts).
  return { ws, env: { HOME: join(root, "home"), XDG_STATE_HOME: join(root, "home", "state") } };
}

const call = (ws: string, env: Record<string, string>, name: string) =>
  run(["call", name, "{}", "--allow-run"], { cwd: ws, env });

describe("a tool added or changed after `toolgate trust` needs approval again", () => {
  test("trust, then a new tool with approval never: refused approval.required (saying why), nothing runs; trust again and it runs", async () => {
    await using root = tempDir();
    const { ws, env } = site(root.path);
    waiving(ws, "known");
    expect((await run(["trust"], { cwd: ws, env })).code).toBe(0);
    expect((await call(ws, env, "known")).code).toBe(0);
    waiving(ws, "planted");
    const r = await call(ws, env, "planted");
    expect([r.code, json(r).error_code, existsSync(join(ws, "planted.ran"))]).toEqual([4, "approval.required", false]);
    expect(json(r).message).toContain("added or changed after the config was trusted");
    const listed = (await run(["tools", "--json"], { cwd: ws, env })).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(listed.filter((d) => d.origin === "authored").map((d) => [d.name, d.approval])).toEqual([
      ["known", "never"],
      ["planted", "required"],
    ]);
    expect((await call(ws, env, "known")).code).toBe(0); // the tool that was trusted keeps its policy
    expect((await run(["trust"], { cwd: ws, env })).code).toBe(0);
    expect([(await call(ws, env, "planted")).code, existsSync(join(ws, "planted.ran"))]).toEqual([0, true]);
  });

  test.each([
    ["its program's content", (ws: string) => waiving(ws, "known", {}, "echo changed >&2\n")],
    ["its manifest (a new need)", (ws: string) => waiving(ws, "known", { needs: { env: ["HOME_TOKEN"] } })],
    [
      "a swap for another folder under the same name",
      (ws: string) => (
        rmSync(join(ws, "tools", "known"), { recursive: true }), waiving(ws, "known", { description: "other" })
      ),
    ],
  ])("a trusted tool whose %s changed needs approval", async (_what, change) => {
    await using root = tempDir();
    const { ws, env } = site(root.path);
    waiving(ws, "known");
    expect((await run(["trust"], { cwd: ws, env })).code).toBe(0);
    change(ws);
    const r = await run(["call", "known", "{}", "--allow-run", "--allow-env"], { cwd: ws, env });
    expect([r.code, json(r).error_code, existsSync(join(ws, "known.ran"))]).toEqual([4, "approval.required", false]);
  });

  test("through serve: the MCP client gets approval.required for the planted tool, the trusted one runs", async () => {
    await using root = tempDir();
    const { ws, env } = site(root.path);
    waiving(ws, "known");
    expect((await run(["trust"], { cwd: ws, env })).code).toBe(0);
    waiving(ws, "planted");
    await using served = await serve(["--allow-run"], { cwd: ws, home: env.HOME! });
    const planted = await served.client.callTool({ name: "planted", arguments: {} });
    expect([planted.isError, textJson(planted).error_code, existsSync(join(ws, "planted.ran"))]).toEqual([
      true,
      "approval.required",
      false,
    ]);
    const known = await served.client.callTool({ name: "known", arguments: {} });
    expect([known.isError, textJson(known)]).toEqual([undefined, { ran: "known" }]);
  });
});

describe("TOOLGATE_TRUST (CI) pins the tools `toolgate trust --print` saw", () => {
  test("the printed pin covers the config and its tools; a tool added later is not covered; the config's bare sha256 covers no tool", async () => {
    await using root = tempDir();
    const { ws, env } = site(root.path);
    // A config that widens (a run grant), so the pin must match for the boot to pass at all.
    writeFileSync(join(ws, "toolgate.json"), JSON.stringify({ permissions: { allow: { run: true } } }));
    waiving(ws, "known");
    const printed = await run(["trust", "--print"], { cwd: ws, env });
    const pin = printed.stdout.trim();
    const configOnly = createHash("sha256")
      .update(JSON.stringify({ permissions: { allow: { run: true } } }))
      .digest("hex");
    expect([printed.code, /^[0-9a-f]{64}$/.test(pin), pin === configOnly]).toEqual([0, true, false]);
    const pinned = (name: string, value: string) =>
      run(["call", name, "{}"], { cwd: ws, env: { ...env, TOOLGATE_TRUST: value } });
    expect((await pinned("known", pin)).code).toBe(0);
    // The config's own sha256 trusts the config (its run grant holds) but no tool's waiver.
    const bare = await pinned("known", configOnly);
    expect([bare.code, json(bare).error_code]).toEqual([4, "approval.required"]);
    waiving(ws, "planted");
    // The old pin no longer matches what is there: the widening config is refused, nothing runs.
    const stale = await pinned("planted", pin);
    expect([stale.code, existsSync(join(ws, "planted.ran"))]).toEqual([5, false]);
    expect(stale.stderr).toContain("toolgate trust --print");
    const fresh = (await run(["trust", "--print"], { cwd: ws, env })).stdout.trim();
    expect([(await pinned("planted", fresh)).code, existsSync(join(ws, "planted.ran"))]).toEqual([0, true]);
  });
});
