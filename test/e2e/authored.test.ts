// Authored tools end to end through dist/toolgate: a folder per tool under tools/, run through
// the launcher with the JSON arguments on stdin; permissions and approval first, the full output
// boundary on what it printed; every invalid manifest and every name collision is exit 5.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { BAD_MANIFESTS, plant } from "../fixtures/authored/bad-manifests.ts";
import { BIN, json, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const FIXTURES = join(import.meta.dir, "..", "fixtures", "authored");

/** Copies fixture tool folders into <ws>/tools/ (modes kept, and the executables made so anyway). */
function install(ws: string, ...names: string[]): void {
  for (const n of names) {
    cpSync(join(FIXTURES, n), join(ws, "tools", n), { recursive: true });
    if (existsSync(join(ws, "tools", n, "run"))) chmodSync(join(ws, "tools", n, "run"), 0o755);
  }
}

function tool(ws: string, folder: string, manifest: Record<string, unknown>, script: string): string {
  const dir = join(ws, "tools", folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "tool.json"), JSON.stringify(manifest, null, 2));
  writeFileSync(join(dir, "run"), script);
  chmodSync(join(dir, "run"), 0o755);
  return join(dir, "tool.json");
}

async function journal(cwd: string) {
  const r = await run(["log", "--json"], { cwd });
  return r.stdout.trim() === ""
    ? []
    : r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
}

const ALL = ["--allow-run", "--approve", "all"];

/** Running: a /proc entry that is not a zombie waiting for an unrelated parent to reap it. */
function alive(pid: number): boolean {
  try {
    return !(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1] ?? "").startsWith("Z");
  } catch {
    return false;
  }
}

describe("a working authored tool", () => {
  test("tools lists it with origin authored; tools NAME shows the manifest's schema", async () => {
    await using ws = tempDir();
    install(ws.path, "echo");
    const list = await run(["tools", "--json"], { cwd: ws.path });
    expect(list.code).toBe(0);
    const row = list.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((d) => d.name === "echo_args");
    expect(row).toMatchObject({
      origin: "authored",
      effect: "read",
      approval: "required",
      digest: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const one = await run(["tools", "echo_args", "--json"], { cwd: ws.path });
    expect(json(one).inputSchema).toEqual({
      type: "object",
      properties: { text: { type: "string", minLength: 1 }, times: { type: "integer", minimum: 1, default: 1 } },
      required: ["text"],
      additionalProperties: false,
    });
  });

  test("a bash tool gets the validated arguments (defaults filled) on stdin, runs in the workspace, and its JSON is the payload", async () => {
    await using ws = tempDir();
    install(ws.path, "echo");
    const r = await run(["call", "echo_args", '{"text":"hi there"}', ...ALL], { cwd: ws.path });
    expect([r.code, json(r)]).toEqual([
      0,
      {
        status: "success",
        tool: "echo_args",
        payload: { received: { text: "hi there", times: 1 }, cwd: basename(ws.path) },
      },
    ]);
    const rows = await journal(ws.path);
    expect(rows.map((x) => [x.tool, x.origin, x.effect, x.status])).toEqual([
      ["echo_args", "authored", "read", "success"],
    ]);
  });

  test("invalid arguments are refused by the manifest's schema before anything runs", async () => {
    await using ws = tempDir();
    install(ws.path, "echo");
    const r = await run(["call", "echo_args", '{"text":""}', ...ALL], { cwd: ws.path });
    expect([r.code, json(r).error_code]).toEqual([1, "args.invalid"]);
    expect(json(r).message).toContain("text: must be at least length 1");
  });

  test("nothing runs without the run permission (named by the tool's folder, not its program) or without approval", async () => {
    await using ws = tempDir();
    tool(
      ws.path,
      "touch",
      { name: "touch_marker", description: "d", input_schema: { type: "object" } },
      "#!/bin/sh\ntouch marker\necho '{}'\n",
    );
    const folder = join(ws.path, "tools/touch");
    const runFile = join(folder, "run");
    const noRun = await run(["call", "touch_marker", "{}", "--approve", "touch_marker"], { cwd: ws.path });
    expect([noRun.code, json(noRun).error_code, json(noRun).details]).toEqual([
      4,
      "permission.denied",
      { flag: `--allow-run=${folder}`, flags: [`--allow-run=${folder}`] },
    ]);
    expect(json(noRun).message).toContain("the authored tool touch_marker");
    const program = await run(["call", "touch_marker", "{}", `--allow-run=${runFile}`, "--approve", "touch_marker"], {
      cwd: ws.path,
    });
    expect([program.code, json(program).details]).toEqual([
      4,
      { flag: `--allow-run=${folder}`, flags: [`--allow-run=${folder}`] },
    ]);
    const noApproval = await run(["call", "touch_marker", "{}", `--allow-run=${folder}`], { cwd: ws.path });
    expect([noApproval.code, json(noApproval).error_code]).toEqual([4, "approval.required"]);
    for (const deny of [`--deny-run=${runFile}`, "--deny-run=tools/touch"]) {
      const denied = await run(["call", "touch_marker", "{}", "--allow-run", deny, "--approve", "all"], {
        cwd: ws.path,
      });
      expect([deny, denied.code, json(denied).error_code]).toEqual([deny, 4, "permission.denied"]);
    }
    expect(existsSync(join(ws.path, "marker"))).toBe(false);
    const ok = await run(["call", "touch_marker", "{}", `--allow-run=tools/touch`, "--approve", "touch_marker"], {
      cwd: ws.path,
    });
    expect([ok.code, existsSync(join(ws.path, "marker"))]).toEqual([0, true]);
  });

  test("declared needs are checked too: an env need without --allow-env is denied", async () => {
    await using ws = tempDir();
    install(ws.path, "env");
    const r = await run(["call", "show_env", "--allow-run"], { cwd: ws.path, env: { DEMO_VISIBLE: "v" } });
    // Everything the call lacks at once: the env grant and the approval.
    expect([r.code, json(r).error_code, json(r).details]).toEqual([
      4,
      "permission.denied",
      { flag: "--allow-env=DEMO_VISIBLE", flags: ["--allow-env=DEMO_VISIBLE", "--approve=show_env"] },
    ]);
  });

  test("the child's environment is exactly the scrubbed set plus the granted env needs (whose values are redacted from the result)", async () => {
    await using ws = tempDir();
    install(ws.path, "env");
    const parent = {
      DEMO_VISIBLE: "shown",
      DEMO_HIDDEN: "not declared",
      AWS_SECRET_ACCESS_KEY: "AKIAXXXXSECRET",
      NODE_OPTIONS: "--require=/nope.js",
      LD_PRELOAD: "libnope.so",
      HOME: ws.path,
    };
    const r = await run(["call", "show_env", "--allow-run", "--allow-env=DEMO_VISIBLE", "--approve", "show_env"], {
      cwd: ws.path,
      env: parent,
    });
    expect(r.code).toBe(0);
    const env = Object.fromEntries(
      Object.entries(json(r).payload.env as Record<string, string>).map(([k, v]) => [k, decodeURIComponent(v)]),
    );
    expect(env).toEqual({
      PATH: "/usr/bin:/bin:/usr/sbin:/sbin:/opt/homebrew/bin:/usr/local/bin",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      DEMO_VISIBLE: "[REDACTED]",
    });
  });
});

describe("what the tool prints", () => {
  const emit = async (ws: string, args: Record<string, unknown>) =>
    run(["call", "emit", JSON.stringify(args), ...ALL], { cwd: ws });

  test.each([
    ["a secret key", { api_key: "sk-123" }, "secret_key", "$.api_key"],
    ["a secret key, deep and spelled differently", { a: { "X-Api-Key": "v" } }, "secret_key", "$.a<key#0>"],
    ["a local path", { where: "see /etc/passwd" }, "local_path", "$.where"],
    [
      "a file: URL inside a JSON-looking string",
      { s: JSON.stringify({ p: "file:///home/u" }) },
      "local_path",
      "$.s<json>.p",
    ],
    ["a private key", { k: "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA" }, "pem", "$.k"],
  ])(
    "%s is rejected whole at the boundary; the journal names the rule, never the value",
    async (_what, printed, rule, where) => {
      await using ws = tempDir();
      install(ws.path, "emit");
      const r = await emit(ws.path, { raw: JSON.stringify(printed) });
      expect([r.code, json(r)]).toEqual([1, { status: "failed", error_code: "sensitive_output_rejected" }]);
      const [row] = await journal(ws.path);
      expect([row.origin, row.error_code, JSON.parse(row.detail)]).toEqual([
        "authored",
        "sensitive_output_rejected",
        { rule, where },
      ]);
    },
  );

  test("a result over 64 KiB is rejected by the size rule, though the launcher's tail was only 12,000 characters", async () => {
    await using ws = tempDir();
    install(ws.path, "emit");
    const fits = await emit(ws.path, { pad: 60_000 });
    expect([fits.code, json(fits).payload.pad.length]).toEqual([0, 60_000]);
    const big = await emit(ws.path, { pad: 70_000 });
    expect([big.code, json(big)]).toEqual([1, { status: "failed", error_code: "sensitive_output_rejected" }]);
  });

  test.each([
    ["text that is not JSON", "hello SENTINEL-7f3a"],
    ["two JSON values", '{"a":1}\n{"b":"SENTINEL-7f3a"}'],
    ["nothing", ""],
  ])("%s is authored.bad_output, and the output is never echoed", async (_what, raw) => {
    await using ws = tempDir();
    install(ws.path, "emit");
    const r = await emit(ws.path, { raw });
    expect([r.code, json(r).error_code]).toEqual([1, "authored.bad_output"]);
    expect(json(r).message).toContain("prints exactly one JSON value");
    expect(r.stdout + r.stderr).not.toContain("SENTINEL");
  });

  test("a non-zero exit is authored.exit with the code and the stderr tail", async () => {
    await using ws = tempDir();
    install(ws.path, "emit");
    const r = await emit(ws.path, { raw: '{"partial":true}', stderr: "could not reach the database\n", exit: 3 });
    expect([r.code, json(r)]).toEqual([
      1,
      {
        status: "failed",
        tool: "emit",
        error_code: "authored.exit",
        message: "emit exited with code 3",
        details: { code: 3, stderr: "could not reach the database\n", stderr_truncated: false },
      },
    ]);
  });

  test("a failure whose stderr names a local path is rejected at the boundary too", async () => {
    await using ws = tempDir();
    install(ws.path, "emit");
    const r = await emit(ws.path, { stderr: "cannot open /var/lib/thing\n", exit: 1 });
    expect([r.code, json(r)]).toEqual([1, { status: "failed", error_code: "sensitive_output_rejected" }]);
  });

  test("a tool past its timeout_secs is ended, its whole tree with it: authored.timeout", async () => {
    await using ws = tempDir();
    tool(
      ws.path,
      "slow",
      { name: "slow", description: "d", input_schema: { type: "object" }, timeout_secs: 0.5 },
      "#!/bin/bash\necho $$ > pid\nsleep 30 &\necho $! >> pid\nwait\n",
    );
    const started = performance.now();
    const r = await run(["call", "slow", "{}", ...ALL], { cwd: ws.path });
    expect(performance.now() - started).toBeLessThan(10_000);
    expect([r.code, json(r).error_code, json(r).details.timeout_secs]).toEqual([1, "authored.timeout", 0.5]);
    const pids = (await Bun.file(join(ws.path, "pid")).text()).trim().split("\n").map(Number);
    expect(pids).toHaveLength(2);
    expect(pids.filter(alive)).toEqual([]);
  });
});

describe("boot failures (exit 5, nothing run or written)", () => {
  test.each(BAD_MANIFESTS.map((b) => [b.what, b] as const))("%s", async (_what, bad) => {
    await using ws = tempDir();
    const path = plant(ws.path, bad);
    const r = await run(["call", "file_read", '{"path":"x"}', "-A", "--approve", "all"], { cwd: ws.path });
    expect([r.code, r.stdout]).toEqual([5, ""]);
    expect(r.stderr).toContain(`${path}:`);
    expect(r.stderr).toMatch(
      bad.key === ""
        ? /tool\.json:\d+:\d+: invalid JSON/
        : new RegExp(`tool\\.json:\\d+:\\d+: ${RegExp.escape(bad.key)}: `),
    );
    expect(r.stderr).toMatch(bad.message);
    expect(r.stderr).toContain("hint:");
    expect(existsSync(join(ws.path, ".toolgate"))).toBe(false);
  });

  test("a name colliding with a built-in fails the boot, naming both provenances and the manifest, asking for a rename", async () => {
    await using ws = tempDir();
    const path = tool(
      ws.path,
      "reader",
      { name: "file-read", description: "d", input_schema: { type: "object" } },
      "#!/bin/sh\n",
    );
    const r = await run(["tools"], { cwd: ws.path });
    expect([r.code, r.stdout]).toEqual([5, ""]);
    expect(r.stderr).toContain(`"file_read" from builtin and "file-read" from authored (${path})`);
    expect(r.stderr).toContain(`rename the authored tool in ${path} (no source has priority)`);
  });

  test("two authored tools with one name fail the boot, naming both manifests", async () => {
    await using ws = tempDir();
    const a = tool(ws.path, "a", { name: "Deploy", description: "d", input_schema: { type: "object" } }, "#!/bin/sh\n");
    const b = tool(ws.path, "b", { name: "deploy", description: "d", input_schema: { type: "object" } }, "#!/bin/sh\n");
    const r = await run(["call", "deploy", "{}", ...ALL], { cwd: ws.path });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`"Deploy" from authored (${a}) and "deploy" from authored (${b})`);
    expect(r.stderr).toContain(`rename one of them in ${a} or ${b}`);
    expect(existsSync(join(ws.path, ".toolgate"))).toBe(false);
  });
});

describe("configuration and pinning", () => {
  test("authored.dir defaults to tools/ in the workspace; the config can point elsewhere", async () => {
    await using ws = tempDir();
    const shown = await run(["config", "--json"], { cwd: ws.path });
    expect(json(shown)["authored.dir"]).toEqual({ value: join(ws.path, "tools"), origin: "default" });
    cpSync(join(FIXTURES, "echo"), join(ws.path, "my-tools", "echo"), { recursive: true });
    expect((await run(["tools", "--json"], { cwd: ws.path })).stdout).not.toContain("echo_args");
    writeFileSync(join(ws.path, "toolgate.json"), '{ "authored": { "dir": "my-tools" } }');
    const r = await run(["call", "echo_args", '{"text":"x"}', ...ALL], { cwd: ws.path });
    expect([r.code, json(r).payload.received]).toEqual([0, { text: "x", times: 1 }]);
  });

  test("an unknown key in the authored section is a config error", async () => {
    await using ws = tempDir();
    writeFileSync(join(ws.path, "toolgate.json"), '{ "authored": { "folder": "x" } }');
    const r = await run(["tools"], { cwd: ws.path });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/authored\.folder: .*must be removed/);
  });

  test("toolgate.lock pins an authored tool: a changed effect is descriptor_changed until the lock is renewed", async () => {
    await using ws = tempDir();
    install(ws.path, "echo");
    expect((await run(["tools", "--lock"], { cwd: ws.path })).code).toBe(0);
    expect((await run(["call", "echo_args", '{"text":"x"}', ...ALL], { cwd: ws.path })).code).toBe(0);
    const path = join(ws.path, "tools/echo/tool.json");
    writeFileSync(path, (await Bun.file(path).text()).replace('"effect": "read"', '"effect": "irreversible"'));
    const r = await run(["call", "echo_args", '{"text":"x"}', ...ALL], { cwd: ws.path });
    expect([r.code, json(r).error_code]).toEqual([5, "descriptor_changed"]);
  });
});
