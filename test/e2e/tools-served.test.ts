// `toolgate tools --served [--name-budget N]` through dist/toolgate: the name each tool is served
// under, beside the catalog name (table) or as a "served" field (NDJSON); a long authored name is
// shortened to stem + digest, also when another tool squats on its first shortened form.
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { BIN, onTty, run, tempDir } from "../helpers.ts";

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error("dist/toolgate is missing: run `bun run build`");
});

const ndjson = (s: string) =>
  s
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const hex = (s: string, n: number) => createHash("sha256").update(s).digest("hex").slice(0, n);

/** An authored tool (listing only: it is never run here). */
function authored(ws: string, name: string): void {
  const dir = join(ws, "tools", name.slice(0, 20) + hex(name, 6));
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "tool.json"),
    JSON.stringify({
      name,
      description: "Long-named fixture.",
      input_schema: { type: "object", additionalProperties: false },
      effect: "read",
      approval: "required",
    }),
  );
  writeFileSync(join(dir, "run"), '#!/bin/sh\necho "{}"\n');
  chmodSync(join(dir, "run"), 0o755);
}

// 64 characters: longer than any client's budget (the catalog takes up to 128).
const LONG = "finance_reconciliation_of_every_outstanding_transfer_between_led";

describe("tools --served", () => {
  test("the long name is past the widest budget", () => expect(LONG.length).toBe(64));

  test("a 128-character authored name, the catalog's longest, is served as stem + 8 hex within the budget", async () => {
    await using ws = tempDir();
    const longest = `${LONG}_${LONG}`.slice(0, 128);
    authored(ws.path, longest);
    const r = await run(["tools", "--served"], { cwd: ws.path });
    expect(r.code).toBe(0);
    const served = Object.fromEntries(ndjson(r.stdout).map((d) => [d.name, d.served]));
    expect(served[longest]).toBe(`finance_reconciliation_of_every_out_${hex(longest, 8)}`);
  });

  test("--name-budget 30: names that fit stay, a 64-character one is stem + 8 hex (NDJSON served field)", async () => {
    await using ws = tempDir();
    authored(ws.path, LONG);
    const r = await run(["tools", "--served", "--name-budget", "30"], { cwd: ws.path });
    expect(r.code).toBe(0);
    const rows = ndjson(r.stdout);
    const plain = ndjson((await run(["tools"], { cwd: ws.path })).stdout);
    // The same descriptors with one more field, right after the name.
    expect(rows.map(({ served: _, ...d }) => d)).toEqual(plain);
    expect(Object.keys(rows[0]).slice(0, 2)).toEqual(["name", "served"]);
    const served = Object.fromEntries(rows.map((d) => [d.name, d.served]));
    expect(served[LONG]).toBe(`finance_reconciliatio_${hex(LONG, 8)}`);
    for (const d of rows.filter((x) => x.name !== LONG)) expect(d.served).toBe(d.name);
  });

  test("the default budget 44 keeps a 44-character name and shortens the 64-character one", async () => {
    await using ws = tempDir();
    authored(ws.path, LONG);
    authored(ws.path, LONG.slice(0, 44));
    const r = await run(["tools", "--served"], { cwd: ws.path });
    const served = Object.fromEntries(ndjson(r.stdout).map((d) => [d.name, d.served]));
    expect([served[LONG.slice(0, 44)], served[LONG]]).toEqual([
      LONG.slice(0, 44),
      `finance_reconciliation_of_every_out_${hex(LONG, 8)}`,
    ]);
  });

  test("a tool named like another's shortened form keeps its name; the long one takes a longer digest", async () => {
    await using ws = tempDir();
    const squatter = `finance_reconciliatio_${hex(LONG, 8)}`;
    authored(ws.path, LONG);
    authored(ws.path, squatter);
    const r = await run(["tools", "--served", "--name-budget", "30"], { cwd: ws.path });
    const served = Object.fromEntries(ndjson(r.stdout).map((d) => [d.name, d.served]));
    expect([served[squatter], served[LONG]]).toEqual([squatter, `finance_reconcili_${hex(LONG, 12)}`]);
  });

  test("on a terminal the table has a SERVED column beside NAME; NAME --served shows the field too", async () => {
    await using ws = tempDir();
    authored(ws.path, LONG);
    const t = await onTty(ws.path, ["tools", "--served", "--name-budget", "30"], "");
    expect(t.code).toBe(0);
    expect(t.out.split("\n")[0]).toMatch(/^NAME +SERVED +ORIGIN +EFFECT/);
    expect(t.out).toMatch(new RegExp(`${LONG} +finance_reconciliatio_${hex(LONG, 8)} +authored`));
    const one = await run(["tools", LONG, "--served", "--name-budget", "30", "--json"], { cwd: ws.path });
    expect([one.code, JSON.parse(one.stdout).served]).toEqual([0, `finance_reconciliatio_${hex(LONG, 8)}`]);
  });

  test("with --profile, the served names are those of the whole catalog, narrowed", async () => {
    await using ws = tempDir();
    const r = await run(["tools", "--served", "--profile", "writer"], { cwd: ws.path });
    expect(ndjson(r.stdout).map((d) => [d.name, d.served])).toEqual([
      ["file_edit", "file_edit"],
      ["file_read", "file_read"],
      ["file_write", "file_write"],
    ]);
  });

  test.each([
    [["--served", "--name-budget", "15"], '--name-budget must be a whole number from 16 to 64 (got "15")'],
    [["--served", "--name-budget", "65"], '--name-budget must be a whole number from 16 to 64 (got "65")'],
    [["--served", "--name-budget=abc"], '--name-budget must be a whole number from 16 to 64 (got "abc")'],
    [["--name-budget", "30"], "--name-budget goes with --served"],
    [["--served", "--lock"], "--lock pins the whole catalog"],
  ])("tools %j is a usage error (exit 2)", async (args, message) => {
    await using ws = tempDir();
    const r = await run(["tools", ...args], { cwd: ws.path });
    expect([r.code, r.stdout]).toEqual([2, ""]);
    expect(r.stderr).toContain(message);
  });
});
