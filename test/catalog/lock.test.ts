import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildCatalog, type Descriptor, type ToolSource } from "../../src/catalog/catalog.ts";
import { checkLock, readLock, renderLock, type Lock } from "../../src/catalog/lock.ts";
import { remoteTerms, tempDir } from "../helpers.ts";

const adapter = {
  needs: () => ({ ok: true as const, value: [] }),
  run: async () => ({ ok: true as const, value: null }),
};
function catalog(over: Partial<ToolSource>[]): readonly Descriptor[] {
  const r = buildCatalog(
    over.map((o) => ({
      origin: "mcp:s",
      rawName: "t",
      name: "s__t",
      description: "",
      inputSchema: { type: "object" },
      effect: "read",
      approval: "required",
      terms: remoteTerms(),
      adapter,
      ...o,
    })),
  );
  if (!r.ok) throw new Error(r.refusal.message);
  return r.value.descriptors;
}

describe("toolgate.lock", () => {
  test("renders sorted, stable text", () => {
    const a = catalog([
      { name: "b__x", rawName: "x" },
      { name: "a__y", rawName: "y" },
    ]);
    const text = renderLock(a);
    expect(Object.keys(JSON.parse(text).tools)).toEqual(["a__y", "b__x"]);
    expect(renderLock([...a].reverse())).toBe(text);
    expect(text.endsWith("}\n")).toBe(true);
  });

  test("a matching catalog has no refusals", () => {
    const d = catalog([{}]);
    expect(checkLock(JSON.parse(renderLock(d)) as Lock, d).size).toBe(0);
  });

  test.each([
    ["effect", { effect: "irreversible" }, "effect read → irreversible"],
    ["schema", { inputSchema: { type: "object", required: ["q"] } }, "input schema changed"],
    ["origin", { origin: "mcp:other" }, "origin mcp:s → mcp:other"],
  ])("a changed %s is descriptor_changed naming what changed", (_what, change, expected) => {
    const lock = JSON.parse(renderLock(catalog([{}]))) as Lock;
    const r = checkLock(lock, catalog([change as Partial<ToolSource>])).get("s__t");
    expect(r?.code).toBe("descriptor_changed");
    expect(r?.message).toContain(expected);
    expect(r?.message).toContain("toolgate tools --lock");
  });

  test("a tool absent from an existing lock is descriptor_unpinned", () => {
    const lock = JSON.parse(renderLock(catalog([{}]))) as Lock;
    const r = checkLock(lock, catalog([{}, { name: "s__new", rawName: "new" }]));
    expect([...r.entries()].map(([n, x]) => [n, x.code])).toEqual([["s__new", "descriptor_unpinned"]]);
  });

  test("readLock: none is null; malformed is an error that says how to renew", async () => {
    await using dir = tempDir();
    const p = join(dir.path, "toolgate.lock");
    expect(readLock(p)).toBeNull();
    writeFileSync(p, "{nope");
    expect(() => readLock(p)).toThrow("toolgate tools --lock");
    writeFileSync(p, '{"version":1,"tools":{"a":{"digest":1}}}');
    expect(() => readLock(p)).toThrow("tools.a must hold");
  });
});
