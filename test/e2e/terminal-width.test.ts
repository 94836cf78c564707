// End to end on a pseudo-terminal (util-linux script) of a given width: tables and help fit it.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { onTerminal, run, tempDir } from "../helpers.ts";

const widest = (lines: readonly string[]) => Math.max(...lines.map((l) => Bun.stringWidth(l)));

describe("on a terminal, output fits its width", () => {
  test.each([60, 90])("tools: the table at %p columns, descriptions cut with …", async (cols) => {
    await using dir = tempDir();
    const r = await onTerminal(["tools"], cols, dir.path);
    expect(r.code).toBe(0);
    const table = r.lines.filter((l) => !l.startsWith("sandbox:"));
    expect(table[0]).toStartWith("NAME ");
    expect(widest(table)).toBeLessThanOrEqual(cols);
    expect(table.some((l) => l.endsWith("…"))).toBe(true);
    // At 90 the description alone gives way: the digest stays whole (12 hex). At 60 the others must too.
    expect(table.find((l) => l.startsWith("file_read "))).toMatch(
      cols >= 90 ? / [0-9a-f]{12} {2}Read/ : / [0-9a-f]{8}… {2}/,
    );
  });

  test("log: long argument previews are cut at the width", async () => {
    await using dir = tempDir();
    writeFileSync(join(dir.path, "a.txt"), "x\n");
    await run(
      [
        "call",
        "file_find",
        JSON.stringify({ pattern: `${"very-long-pattern-".repeat(8)}*` }),
        "--allow-read",
        "--approve",
        "file_find",
      ],
      { cwd: dir.path },
    );
    const r = await onTerminal(["log"], 70, dir.path);
    expect(r.code).toBe(0);
    expect(r.lines[0]).toStartWith("TIME ");
    expect(widest(r.lines)).toBeLessThanOrEqual(70);
    expect(r.lines[1]).toEndWith("…");
  });

  test("tools forwarded to a session: the table fits the client's terminal", async () => {
    await using dir = tempDir();
    await using user = tempDir();
    const env = { XDG_STATE_HOME: user.path };
    const started = await run(["session", "start", "--idle-secs", "60"], { cwd: dir.path, env });
    expect(started.code).toBe(0);
    try {
      const r = await onTerminal(["tools"], 60, dir.path, env);
      expect(r.code).toBe(0);
      expect(r.lines[0]).toStartWith("NAME ");
      expect(widest(r.lines.filter((l) => !l.startsWith("sandbox:")))).toBeLessThanOrEqual(60);
      const status = JSON.parse((await run(["session", "status", "--json"], { cwd: dir.path, env })).stdout);
      expect(status.calls).toBe(1);
    } finally {
      await run(["session", "stop"], { cwd: dir.path, env });
    }
  });

  test("piped, a table is not printed at all: NDJSON, whole", async () => {
    await using dir = tempDir();
    const r = await run(["tools"], { cwd: dir.path });
    const find = r.stdout
      .split("\n")
      .map((l) => (l ? JSON.parse(l) : null))
      .find((d) => d?.name === "file_find");
    expect(find.description).toEndWith("where nothing is listed.");
  });
});
