// End to end: what an MCP server asks during `call`. Its elicitation is a form on the
// terminal (util-linux `script` gives the binary one; answers are typed into it), defaults kept by
// Enter (SEP-1034); with nobody to ask it is declined and stderr says so; sampling is refused
// (toolgate holds no model); progress is one updating stderr line on a terminal, nothing in a pipe.
// The journal keeps how an elicitation ended, never the values.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { json, onTty, run, tempDir } from "../helpers.ts";

const ASKING = join(import.meta.dir, "..", "fixtures", "mcp", "asking.ts");
const GRANT = ["--allow-run", "--approve", "all"];
const setup = (dir: string) =>
  writeFileSync(
    join(dir, "toolgate.json"),
    JSON.stringify({ mcpServers: { ask: { command: process.execPath, args: [ASKING] } } }),
  );
const textOf = (envelope: any): string => envelope.payload.content[0].text;
const rowOf = async (cwd: string, tool: string) =>
  (await run(["log", "--json"], { cwd })).stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .findLast((r: { tool: string; event: string }) => r.tool === tool && r.event === "tool_finished");
/** The result line among what a terminal showed (the form and the progress line share it). */
const resultOn = (out: string) =>
  JSON.parse(
    out
      .split("\n")
      .find((l) => l.includes('{"status"'))!
      .replace(/^.*?(\{"status")/, "$1"),
  );

describe("elicitation during call", () => {
  test("no terminal (CI): declined, the tool's result shows it, stderr says why, the journal says declined", async () => {
    await using dir = tempDir();
    setup(dir.path);
    const r = await run(["call", "ask__profile", "{}", ...GRANT], { cwd: dir.path });
    expect([r.code, textOf(json(r))]).toEqual([0, "action=decline content=null"]);
    expect(r.stderr).toContain(
      'toolgate: MCP server "ask" asked for input during ask__profile (elicitation); declined: nobody can be asked here (no terminal, CI, or --no-prompt)',
    );
    expect(JSON.parse((await rowOf(dir.path, "ask__profile")).detail)).toEqual({ elicited: "declined" });
  }, 30_000);

  test("--no-prompt on a terminal: declined too", async () => {
    await using dir = tempDir();
    setup(dir.path);
    const t = await onTty(dir.path, ["call", "ask__profile", "{}", "--no-prompt", ...GRANT], "");
    expect([t.code, textOf(resultOn(t.out))]).toEqual([0, "action=decline content=null"]);
    expect(t.out).toContain("declined: nobody can be asked here");
  }, 30_000);

  test("forwarded to a session from a terminal: declined, and stderr says how to be asked (never a silent decline)", async () => {
    await using dir = tempDir();
    setup(dir.path);
    // The session's socket lives in the user's runtime folder, outside the workspace.
    await using rt = tempDir("toolgate-run-");
    const env = { XDG_RUNTIME_DIR: rt.path };
    expect((await run(["session", "start"], { cwd: dir.path, env })).code).toBe(0);
    try {
      const t = await onTty(dir.path, ["call", "ask__profile", "{}", ...GRANT], "\n\n\n\n\na\n", env);
      expect([t.code, textOf(resultOn(t.out))]).toEqual([0, "action=decline content=null"]);
      expect(t.out).toContain(
        "declined: a call forwarded to a session cannot show a form (run it with --no-session to be asked)",
      );
      expect(JSON.parse((await rowOf(dir.path, "ask__profile")).detail)).toMatchObject({
        elicited: "declined",
        via: "session",
      });
    } finally {
      await run(["session", "stop"], { cwd: dir.path, env });
    }
  }, 30_000);

  test("on a terminal: Enter keeps each default, the optional field is left out, accepted", async () => {
    await using dir = tempDir();
    setup(dir.path);
    const t = await onTty(dir.path, ["call", "ask__profile", "{}", ...GRANT], "\n\n\n\n\na\n");
    expect([t.code, textOf(resultOn(t.out))]).toEqual([
      0,
      'action=accept content={"name":"Ada","age":36,"color":"green","subscribe":false}',
    ]);
    expect(t.out).toContain('┏ 💬 MCP server "ask" asks for input (during ask__profile):');
    expect(t.out).toContain("┠─ Name (string) [Ada] > ");
    expect(t.out).toContain("┠─ age (integer) — Age in years [36] > ");
    expect(t.out).toContain("┠─ color (one of 1=red, 2=green, 3=blue) [green] > ");
    expect(JSON.parse((await rowOf(dir.path, "ask__profile")).detail)).toEqual({ elicited: "accepted" });
  }, 30_000);

  test("typed values (an enum by number, a bad integer asked again) are sent; the journal keeps none of them", async () => {
    await using dir = tempDir();
    setup(dir.path);
    const t = await onTty(
      dir.path,
      ["call", "ask__profile", "{}", ...GRANT],
      "Grace Hopper\nold\n85\n3\nyes\namazing-grace\na\n",
    );
    expect(textOf(resultOn(t.out))).toBe(
      'action=accept content={"name":"Grace Hopper","age":85,"color":"blue","subscribe":true,"nick":"amazing-grace"}',
    );
    expect(t.out).toContain("┃   answer a whole number");
    const row = await rowOf(dir.path, "ask__profile");
    expect(JSON.parse(row.detail)).toEqual({ elicited: "accepted" });
    expect(JSON.stringify(row)).not.toContain("Grace");
  }, 30_000);

  test("d declines, end of input cancels", async () => {
    await using dir = tempDir();
    setup(dir.path);
    const declined = await onTty(dir.path, ["call", "ask__profile", "{}", ...GRANT], "\n\n\n\n\nd\n");
    expect(textOf(resultOn(declined.out))).toBe("action=decline content=null");
    const cancelled = await onTty(dir.path, ["call", "ask__profile", "{}", ...GRANT], "\n");
    expect(textOf(resultOn(cancelled.out))).toBe("action=cancel content=null");
    expect(JSON.parse((await rowOf(dir.path, "ask__profile")).detail)).toEqual({ elicited: "cancelled" });
  }, 30_000);
});

describe("sampling during call", () => {
  test("refused with a clear error: toolgate holds no model", async () => {
    await using dir = tempDir();
    setup(dir.path);
    const r = await run(["call", "ask__sample", "{}", ...GRANT], { cwd: dir.path });
    expect([r.code, textOf(json(r))]).toEqual([
      0,
      "sampling failed: MCP error -32601: toolgate holds no model, so it cannot answer sampling/createMessage; the request is declined",
    ]);
  }, 30_000);
});

describe("progress during call", () => {
  test("stderr on a terminal: the status line shows each step as it comes, cleared before the result", async () => {
    await using dir = tempDir();
    setup(dir.path);
    const t = await onTty(dir.path, ["call", "ask__slow", "{}", ...GRANT], "", { TERM: "xterm" });
    expect(textOf(resultOn(t.out))).toBe("done (progressToken: yes)");
    expect(t.out).toMatch(/\x1b\[2K. ask__slow: 1\/3 \(33%\) step 1 · \d+\.\ds/);
    expect(t.out).toMatch(/\x1b\[2K. ask__slow: 3\/3 \(100%\) step 3 · \d+\.\ds(\x1b\[2K. [^\x1b]*)*\x1b\[2K\{/);
  }, 30_000);

  test("a terminal that cannot redraw a line (TERM=dumb): no progress line, no control sequence", async () => {
    await using dir = tempDir();
    setup(dir.path);
    const t = await onTty(dir.path, ["call", "ask__slow", "{}", ...GRANT], "");
    expect([textOf(resultOn(t.out)), t.out.includes("\x1b"), t.out.includes("step")]).toEqual([
      "done (progressToken: yes)",
      false,
      false,
    ]);
  }, 30_000);

  test("stderr piped: no progress at all (the server still got a progressToken)", async () => {
    await using dir = tempDir();
    setup(dir.path);
    const r = await run(["call", "ask__slow", "{}", ...GRANT], { cwd: dir.path });
    expect([r.code, textOf(json(r)), r.stderr]).toEqual([0, "done (progressToken: yes)", ""]);
  }, 30_000);
});
