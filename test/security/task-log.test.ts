// A background task's live log is one of its call's views
// (task_status too): an authored tool's needs.env secret is redacted from it as from the
// result (a canary absent from task_status, tasks logs/status/list, the journal and every file of
// the state folder); the model's log tail passes the boundary with the tool's own rules (an
// authored tool's local paths are withheld, as its result would be); and `tasks logs` on a
// terminal escapes what would act on it (OSC 52, CSI), while piped it stays as written.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, onTty, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const CANARY = "ghp_canary0123456789abcdefTASKLOG";

function tool(ws: string, name: string, script: string, env: string[] = []): void {
  const dir = join(ws, "tools", name);
  mkdirSync(dir, { recursive: true });
  const manifest = {
    name,
    description: "writes to its log",
    input_schema: { type: "object" },
    effect: "read",
    approval: "required",
    needs: { env },
  };
  writeFileSync(join(dir, "tool.json"), JSON.stringify(manifest));
  writeFileSync(join(dir, "run"), script);
  chmodSync(join(dir, "run"), 0o755);
}

/** Starts `tool` in the background, waits for it, returns its id. */
async function finished(ws: string, tool: string, grants: string[], env: Record<string, string> = {}): Promise<string> {
  const r = await run(["call", tool, "{}", "--background", ...grants, "--approve", tool], { cwd: ws, env });
  expect(r.code).toBe(0);
  const id = json(r).task_id as string;
  const w = await run(["tasks", "wait", id, "--timeout", "30"], { cwd: ws, env });
  expect([w.code, json(w).status]).toEqual([0, "succeeded"]);
  return id;
}

/** Every file under `dir`, as bytes (the database, its WAL, the artifacts). */
function filesUnder(dir: string): [string, Buffer][] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((n) => join(dir, n))
    .filter((p) => statSync(p).isFile())
    .map((p) => [p, readFileSync(p)]);
}

describe("an authored tool's needs.env secret in a background task's live log", () => {
  test("is redacted from every view: task_status, tasks logs, status, list, the journal, the state folder's files", async () => {
    await using ws = tempDir();
    tool(ws.path, "leak", `#!/bin/sh\necho "auth with $GITHUB_TOKEN" >&2\nprintf '{"got":"%s"}' "$GITHUB_TOKEN"\n`, [
      "GITHUB_TOKEN",
    ]);
    const env = { GITHUB_TOKEN: CANARY };
    const id = await finished(ws.path, "leak", ["--allow-run", "--allow-env=GITHUB_TOKEN"], env);
    const views = {
      task_status: await run(["call", "task_status", JSON.stringify({ task_id: id })], { cwd: ws.path, env }),
      logs: await run(["tasks", "logs", id], { cwd: ws.path, env }),
      status: await run(["tasks", "status", id], { cwd: ws.path, env }),
      list: await run(["tasks", "list", "--json"], { cwd: ws.path, env }),
      journal: await run(["log", "--json"], { cwd: ws.path, env }),
    };
    for (const [name, r] of Object.entries(views))
      expect([name, r.code, r.stdout.includes(CANARY) || r.stderr.includes(CANARY)]).toEqual([name, 0, false]);
    expect(json(views.task_status).payload.log_tail).toContain("auth with [REDACTED]");
    expect(views.logs.stdout).toContain("auth with [REDACTED]");
    for (const [path, bytes] of filesUnder(join(ws.path, ".toolgate")))
      expect([path, bytes.includes(CANARY)]).toEqual([path, false]);
  });
});

describe("task_status's log tail passes the boundary with the tool's own rules", () => {
  test("an authored tool's stderr with a local path: withheld from the model (saying so), still in the operator's logs", async () => {
    await using ws = tempDir();
    tool(ws.path, "paths", `#!/bin/sh\necho "cannot read /root/.ssh/id_ed25519: denied" >&2\necho '{}'\n`);
    const id = await finished(ws.path, "paths", ["--allow-run"]);
    const r = await run(["call", "task_status", JSON.stringify({ task_id: id })], { cwd: ws.path });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain("/root/.ssh");
    expect(json(r).payload).toMatchObject({
      status: "succeeded",
      result: { status: "success", payload: {} },
      log_tail: null,
      log_tail_withheld: "sensitive_output_rejected",
    });
    expect((await run(["tasks", "logs", id], { cwd: ws.path })).stdout).toContain("cannot read /root/.ssh/id_ed25519");
  });

  test("a path cut in half by the tail's bound is not shown in part", async () => {
    await using ws = tempDir();
    // The path straddles the 2,000-character bound: its end alone would not look like a path.
    tool(
      ws.path,
      "long",
      `#!/bin/sh\nprintf '%s' "/root/secret/${"s".repeat(40)}" >&2\nprintf ' %.0s' $(seq 1980) >&2\necho '{}'\n`,
    );
    const id = await finished(ws.path, "long", ["--allow-run"]);
    const tail = json(await run(["call", "task_status", JSON.stringify({ task_id: id })], { cwd: ws.path })).payload
      .log_tail as string;
    expect(tail).not.toContain("sss");
    expect(tail).toStartWith(" ");
    expect(tail.length).toBeLessThanOrEqual(2_000);
  });

  test("bash (a built-in, which speaks in paths by design): its tail with a path is shown, as its result would be", async () => {
    await using ws = tempDir();
    const r = await run(
      ["call", "bash", '{"command":"echo using /usr/bin/env >&2"}', "--background", "--allow-run", "--approve", "bash"],
      { cwd: ws.path },
    );
    const id = json(r).task_id as string;
    expect((await run(["tasks", "wait", id, "--timeout", "30"], { cwd: ws.path })).code).toBe(0);
    expect(
      json(await run(["call", "task_status", JSON.stringify({ task_id: id })], { cwd: ws.path })).payload.log_tail,
    ).toEndWith("using /usr/bin/env\n");
  });
});

describe("tasks logs and terminal escapes", () => {
  test("on a terminal OSC 52 and CSI are shown escaped, lines stay lines; piped, the output is as written", async () => {
    await using ws = tempDir();
    const command = String.raw`printf '\033]52;c;cHduZWQ=\007\033[2J\033[31mred\r\nnext\tcol\n'`;
    const r = await run(
      ["call", "bash", JSON.stringify({ command }), "--background", "--allow-run", "--approve", "bash"],
      { cwd: ws.path },
    );
    const id = json(r).task_id as string;
    expect((await run(["tasks", "wait", id, "--timeout", "30"], { cwd: ws.path })).code).toBe(0);
    const tty = await onTty(ws.path, ["tasks", "logs", id], "");
    expect(tty.code).toBe(0);
    expect(tty.out).not.toContain("\x1b");
    expect(tty.out).not.toContain("\x07");
    expect(tty.out).toContain("\\u{1b}]52;c;cHduZWQ=\\u{7}\\u{1b}[2J\\u{1b}[31mred\nnext\tcol\n");
    const piped = await run(["tasks", "logs", id], { cwd: ws.path });
    expect(piped.stdout).toEndWith("\x1b]52;c;cHduZWQ=\x07\x1b[2J\x1b[31mred\r\nnext\tcol\n");
  });
});
