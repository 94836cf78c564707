// Terminal escapes never reach the operator: OSC 0 (window title), OSC 52
// (clipboard write), CSI, C1 and bidi characters in a tool name, a path argument and an MCP
// server's error text and description are made visible on stderr, in `log` and in `tools`.
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { onTty, run, tempDir } from "../helpers.ts";
import { EVIL, VISIBLE } from "../fixtures/mcp/evil.ts";

const HOSTILE = join(import.meta.dir, "..", "fixtures", "mcp", "hostile.ts");
// Anything that drives a terminal: C0 but newline, DEL, C1, bidi overrides and isolates.
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe("control characters are made visible on every human-facing line", () => {
  test("a tool name: the stderr message, the log table and log --json", async () => {
    await using dir = tempDir();
    const r = await run(["call", `x${EVIL}`, "{}"], { cwd: dir.path });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stderr).toContain(VISIBLE);
    // stdout: JSON, which escapes C0 itself; DEL, C1 and bidi are escaped too (\uXXXX, same value).
    expect(r.stdout).not.toMatch(RAW);
    expect(JSON.parse(r.stdout).message).toContain(`x${EVIL}`);
    const table = await onTty(dir.path, ["log"], "");
    expect(table.out).not.toMatch(RAW);
    expect(table.out).toContain(`x${VISIBLE}`);
    const logJson = await run(["log", "--json"], { cwd: dir.path });
    expect(logJson.stdout).not.toMatch(RAW);
    expect(JSON.parse(logJson.stdout).tool).toBe(`x${EVIL}`);
  });

  test("a path argument: the refusal on stderr (a missing file, a denied permission) and the log", async () => {
    await using dir = tempDir();
    const args = JSON.stringify({ path: `a${EVIL}.txt` });
    const missing = await run(["call", "file_read", args, "--allow-read", "--approve", "file_read"], { cwd: dir.path });
    expect(missing.code).toBe(1);
    expect(missing.stderr).not.toMatch(RAW);
    expect(missing.stderr).toContain(`a${VISIBLE}.txt`);
    const denied = await run(["call", "file_read", args, "--approve", "file_read"], { cwd: dir.path });
    expect(denied.code).toBe(4);
    expect(denied.stderr).not.toMatch(RAW);
    const table = await onTty(dir.path, ["log"], "");
    expect(table.out).not.toMatch(RAW);
    expect(table.out).toContain("file_read");
  });

  test("an MCP server's error text and tool description", async () => {
    await using dir = tempDir();
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({ mcpServers: { h: { command: process.execPath, args: [HOSTILE] } } }),
    );
    const r = await run(["call", "h__hostile", "{}", "--allow-run", "--approve", "all"], { cwd: dir.path });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: "failed", tool: "h__hostile" });
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stderr).toContain(`it failed ${VISIBLE}`);
    const listed = await onTty(dir.path, ["tools", "--allow-run"], "");
    expect(listed.out).toContain("h__hostile");
    expect(listed.out).not.toMatch(RAW);
    expect(listed.out).toContain(`Looks harmless${VISIBLE}`);
    const listedJson = await run(["tools", "--json", "--allow-run"], { cwd: dir.path });
    expect(listedJson.stdout).not.toMatch(RAW);
    const d = listedJson.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((x) => x.name === "h__hostile");
    expect(d.description).toBe(`Looks harmless${EVIL}`);
  });
});

describe("a message of several lines keeps its lines", () => {
  test("an untrusted config's refusal lists each widening key on its own line, escaped and indented", async () => {
    await using dir = tempDir();
    await using home = tempDir();
    writeFileSync(
      join(dir.path, "toolgate.json"),
      JSON.stringify({ permissions: { allow: { read: true, run: [`x${EVIL}`] } } }),
    );
    const r = await run(["call", "file_read", '{"path":"a"}'], { cwd: dir.path, env: { XDG_STATE_HOME: home.path } });
    expect(r.code).toBe(5);
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stderr).not.toContain("\\u{a}");
    const lines = r.stderr.split("\n");
    expect(lines[0]).toStartWith("toolgate: ");
    // Every line after the first is indented under it: nothing in the message starts a line of its own.
    expect(
      lines
        .slice(1)
        .filter((l) => l !== "")
        .every((l) => l.startsWith("  ")),
    ).toBe(true);
    expect(lines.some((l) => l.includes("permissions.allow.read"))).toBe(true);
    expect(lines.some((l) => l.includes("permissions.allow.run"))).toBe(true);
  });
});
