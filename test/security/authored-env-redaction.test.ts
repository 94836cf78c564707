// The parent's values an authored tool is given through its
// manifest's `needs.env` are secrets. They reach the tool, but never its result, a refusal's
// message or stderr tail, or the journal: each view shows [REDACTED] where the value was.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const TOKEN = "ghp_0123456789abcdefSECRET";

function tool(ws: string, name: string, script: string): void {
  const dir = join(ws, "tools", name);
  mkdirSync(dir, { recursive: true });
  const manifest = {
    name,
    description: "prints what it was given",
    input_schema: { type: "object" },
    effect: "read",
    approval: "required",
    needs: { env: ["GITHUB_TOKEN"] },
  };
  writeFileSync(join(dir, "tool.json"), JSON.stringify(manifest));
  writeFileSync(join(dir, "run"), script);
  chmodSync(join(dir, "run"), 0o755);
}

const GRANTS = ["--allow-run", "--allow-env=GITHUB_TOKEN", "--approve", "all"];

async function journal(cwd: string): Promise<string> {
  const r = await run(["log", "--json"], { cwd });
  expect(r.code).toBe(0);
  return r.stdout;
}

describe("an authored tool's needs.env values are redacted like ${NAME} bindings", () => {
  test("from its result and the journal", async () => {
    await using ws = tempDir();
    tool(ws.path, "leak", `#!/bin/sh\nprintf '{"got":"%s","note":"token=%s"}' "$GITHUB_TOKEN" "$GITHUB_TOKEN"\n`);
    const r = await run(["call", "leak", "{}", ...GRANTS], { cwd: ws.path, env: { GITHUB_TOKEN: TOKEN } });
    expect([r.code, json(r)]).toEqual([
      0,
      { status: "success", tool: "leak", payload: { got: "[REDACTED]", note: "token=[REDACTED]" } },
    ]);
    expect(r.stderr).not.toContain(TOKEN);
    expect(await journal(ws.path)).not.toContain(TOKEN);
  });

  test("from a failed run's stderr tail and message", async () => {
    await using ws = tempDir();
    tool(ws.path, "fail", `#!/bin/sh\necho "auth failed for $GITHUB_TOKEN" >&2\nexit 3\n`);
    const r = await run(["call", "fail", "{}", ...GRANTS], { cwd: ws.path, env: { GITHUB_TOKEN: TOKEN } });
    expect(r.code).toBe(1);
    expect(json(r).error_code).toBe("authored.exit");
    expect(json(r).details.stderr).toBe("auth failed for [REDACTED]\n");
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
    expect(await journal(ws.path)).not.toContain(TOKEN);
  });
});
