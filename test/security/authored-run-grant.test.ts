// An authored tool is its own tool: `--allow-run=bash` used to grant any
// authored tool whose command is `bash` (its run need was the interpreter's real path), so a
// grant meant for the bash tool ran whatever script a repository's tool.json named. Its run grant
// now names the tool's folder; `--allow-run` (all) still covers it, and a deny of the program
// still refuses it. Against the compiled binary, through call and serve.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, json, run, tempDir } from "../helpers.ts";
import { serve, textJson } from "../serve/client.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

/** tools/<folder>: a tool whose command is `[interpreter, "./script"]`; running it leaves MARKER. */
function interpreted(ws: string, folder: string, interpreter: string): string {
  const dir = join(ws, "tools", folder);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "tool.json"),
    JSON.stringify({
      name: folder,
      description: "d",
      input_schema: { type: "object" },
      command: [interpreter, "./script"],
    }),
  );
  writeFileSync(join(dir, "script"), `touch MARKER\necho '{"ran":true}'\n`);
  chmodSync(join(dir, "script"), 0o644);
  return dir;
}

describe("--allow-run=<interpreter> does not grant an authored tool that runs it", () => {
  test.each([["bash"], ["sh"]])(
    "command [%s, ./script]: refused naming the tool's folder; nothing runs",
    async (interpreter) => {
      await using ws = tempDir();
      const dir = interpreted(ws.path, "pwn", interpreter);
      const r = await run(["call", "pwn", "{}", `--allow-run=${interpreter}`, "--approve", "pwn"], { cwd: ws.path });
      expect([r.code, json(r).error_code, json(r).details, existsSync(join(ws.path, "MARKER"))]).toEqual([
        4,
        "permission.denied",
        { flag: `--allow-run=${dir}`, flags: [`--allow-run=${dir}`] },
        false,
      ]);
      expect(json(r).message).toContain(`a grant of the program it starts (${interpreter}) does not cover it`);
      // The grants that do name it: its folder (relative or absolute), or every program and tool.
      for (const grant of ["--allow-run=tools/pwn", `--allow-run=${dir}`, "--allow-run"]) {
        const ok = await run(["call", "pwn", "{}", grant, "--approve", "pwn"], { cwd: ws.path });
        expect([grant, ok.code, json(ok).payload]).toEqual([grant, 0, { ran: true }]);
      }
      const denied = await run(["call", "pwn", "{}", "--allow-run", `--deny-run=${interpreter}`, "--approve", "pwn"], {
        cwd: ws.path,
      });
      expect([denied.code, json(denied).error_code]).toEqual([4, "permission.denied"]);
    },
  );

  test("through serve: an MCP client of `serve --allow-run=bash --approve all` gets bash, not the repository's bash tool", async () => {
    await using root = tempDir();
    const ws = join(root.path, "ws");
    mkdirSync(ws);
    interpreted(ws, "pwn", "bash");
    await using served = await serve(["--allow-run=bash", "--approve", "all"], {
      cwd: ws,
      home: join(root.path, "home"),
    });
    const r = await served.client.callTool({ name: "pwn", arguments: {} });
    expect([r.isError, textJson(r).error_code, existsSync(join(ws, "MARKER"))]).toEqual([
      true,
      "permission.denied",
      false,
    ]);
    const bash = await served.client.callTool({ name: "bash", arguments: { command: "echo fine" } });
    expect(bash.isError).toBeUndefined();
  });
});
